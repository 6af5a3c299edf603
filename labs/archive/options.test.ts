import { describe, expect, it } from 'vitest';
import { parseLimit, parseStatus } from './options.js';
import { UsageError } from '../../src/errors.js';

describe('archive tool options', () => {
  it('--status takes a lifecycle state in any case', () => {
    expect(parseStatus('FIXED')).toBe('FIXED');
    expect(parseStatus('in_progress')).toBe('IN_PROGRESS');
    for (const bad of ['', 'DONE', 'ARCHIVED,FIXED']) expect(() => parseStatus(bad)).toThrow(UsageError);
  });

  it('--limit takes a whole number ≥ 1', () => {
    expect(parseLimit('50')).toBe(50);
    for (const bad of ['0', '-1', '1.5', 'ten', '']) expect(() => parseLimit(bad)).toThrow(UsageError);
  });
});
