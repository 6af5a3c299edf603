import { describe, expect, it } from 'vitest';
import { maskText, maskUrl } from './urls.js';

describe('maskUrl / maskText', () => {
  it('hides the password and keeps everything else', () => {
    expect(maskUrl('amqp://app:app-lab-only@127.0.0.1:5772/lab')).toBe('amqp://app:***@127.0.0.1:5772/lab');
    expect(maskUrl('postgres://u:p%40ss@h/db')).toBe('postgres://u:***@h/db');
    expect(maskUrl('http://h:15672')).toBe('http://h:15672');
  });

  it('masks a URL it cannot parse', () => {
    expect(maskUrl('amqp://app:secret@')).not.toContain('secret');
  });

  it('masks every URL inside free text', () => {
    const t = maskText('connect amqp://a:pw1@h/x failed; also postgres://b:pw2@h/db');
    expect(t).toBe('connect amqp://a:***@h/x failed; also postgres://b:***@h/db');
  });
});
