import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { maskText, maskUrl } from './urls.js';
import { redactSecrets, rememberSecrets, secretsOf } from './secrets.js';

describe('maskUrl / maskText', () => {
  it('hides the password and keeps everything else', () => {
    expect(maskUrl('amqp://app:app-lab-only@127.0.0.1:5772/lab')).toBe('amqp://app:***@127.0.0.1:5772/lab');
    expect(maskUrl('postgres://u:p%40ss@h/db')).toBe('postgres://u:***@h/db');
    expect(maskUrl('http://h:15672')).toBe('http://h:15672');
  });

  it('masks every password a client reads from the query string', () => {
    expect(maskUrl('postgresql://app@127.0.0.1:5532/lab?password=s3cret')).toBe(
      'postgresql://app@127.0.0.1:5532/lab?password=***',
    );
    expect(maskUrl('postgres://app@h/lab?sslmode=disable&sslpassword=k3y&pass=p1&PassWord=p2')).toBe(
      'postgres://app@h/lab?sslmode=disable&sslpassword=***&pass=***&PassWord=***',
    );
    expect(maskUrl('postgres://app@h/lab?pass%77ord=s3cret')).toBe('postgres://app@h/lab?pass%77ord=***');
    expect(maskUrl('amqp://h/lab?heartbeat=5&token=abc')).toBe('amqp://h/lab?heartbeat=5&token=***');
  });

  it('masks a URL it cannot parse', () => {
    for (const raw of [
      'amqp://app:secret@',
      'amqp://app:sec/ret@host',
      'app:secret@host',
      'amqp://app:se?cr#et@h:99999',
      'postgres://h:x/lab?password=secret',
    ]) {
      expect(maskUrl(raw), raw).not.toMatch(/secret|sec\/ret|se\?cr/);
    }
  });

  it('masks every URL inside free text', () => {
    const t = maskText('connect amqp://a:pw1@h/x failed; also postgres://b:pw2@h/db?password=pw3: refused');
    expect(t).toBe('connect amqp://a:***@h/x failed; also postgres://b:***@h/db?password=***: refused');
    expect(maskText('options: password=hunter22 port=5')).toBe('options: password=*** port=5');
  });

  it('never shows a generated password, however it is written into the URL', () => {
    const password = fc
      .string({ minLength: 4, maxLength: 24 })
      .filter((s) => !/^[\w.-]*$/.test(s) || /\d/.test(s))
      .filter((s) => s.trim().length >= 4);
    fc.assert(
      fc.property(
        password,
        fc.constantFrom('amqp', 'postgres', 'postgresql', 'http'),
        fc.boolean(),
        (pw, scheme, inQuery) => {
          const url = inQuery
            ? `${scheme}://app@127.0.0.1:5532/lab?sslmode=disable&password=${encodeURIComponent(pw)}`
            : `${scheme}://app:${encodeURIComponent(pw)}@127.0.0.1:5532/lab`;
          const masked = maskUrl(url);
          expect(masked).not.toContain(encodeURIComponent(pw));
          expect(maskText(`failed: ${url} refused`)).not.toContain(encodeURIComponent(pw));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never shows the part after the user name of a malformed URL', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 6, maxLength: 20 }).filter((s) => !s.includes('@') && s.trim() === s && s.length >= 6),
        (pw) => {
          const raw = `amqp://app:${pw}@`;
          expect(maskUrl(raw)).not.toContain(pw);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('redactSecrets', () => {
  it('drops a remembered password wherever it appears, as written and decoded', () => {
    rememberSecrets('postgres://app:p%40ss-w0rd@h/db?sslpassword=ssl-s3cret');
    expect(secretsOf('postgres://app@h/db?password=q-s3cret')).toContain('q-s3cret');
    const text = 'driver said: bad password p@ss-w0rd (p%40ss-w0rd) and ssl-s3cret';
    expect(redactSecrets(text)).toBe('driver said: bad password *** (***) and ***');
  });

  it('remembers the secret of a malformed URL', () => {
    rememberSecrets('amqp://app:odd/pa55@');
    expect(redactSecrets('echo: odd/pa55')).toBe('echo: ***');
  });

  it('leaves ordinary output alone', () => {
    const line = '[consumer] timestamp=2026-10-07T10:27:14.314Z lab=retry passed=true status=received';
    expect(redactSecrets(line)).toBe(line);
    expect(redactSecrets('PASS healthyAttempts: 1')).toBe('PASS healthyAttempts: 1');
  });
});
