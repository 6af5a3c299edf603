import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';
import { UsageError } from './errors.js';

describe('parseDuration', () => {
  it('reads seconds, minutes, hours and days', () => {
    expect(parseDuration('45s')).toBe(45_000);
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(parseDuration('12h')).toBe(12 * 3_600_000);
    expect(parseDuration('30d')).toBe(30 * 86_400_000);
    expect(parseDuration(' 1d ')).toBe(86_400_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('240', 's')).toBe(240_000);
  });

  it.each(['', '30', 'd', '30x', '30D', '1.5ms', '-1d', '0d', '0s', '30 d', '1d2h', '99999999999999999d'])(
    'rejects %j with a UsageError',
    (raw) => {
      expect(() => parseDuration(raw)).toThrow(UsageError);
    },
  );

  it('names the bad value and the accepted form', () => {
    try {
      parseDuration('30x');
      expect.unreachable();
    } catch (e) {
      expect((e as UsageError).message).toBe("invalid duration '30x'");
      expect((e as UsageError).hint).toMatch(/500ms, 2s, 90m, 12h, 30d/);
    }
  });
});

describe('formatDuration', () => {
  it('writes the largest whole unit, and round-trips parseDuration', () => {
    expect(formatDuration(30 * 86_400_000)).toBe('30d');
    expect(formatDuration(36 * 3_600_000)).toBe('36h');
    expect(formatDuration(90 * 60_000)).toBe('90m');
    expect(formatDuration(45_000)).toBe('45s');
    expect(formatDuration(1500)).toBe('1500ms');
    for (const d of ['30d', '12h', '90m', '45s', '7d']) expect(formatDuration(parseDuration(d))).toBe(d);
  });
});
