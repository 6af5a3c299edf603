import { describe, expect, it } from 'vitest';
import { parsePrefetch, parseWindowMs } from './options.js';
import { UsageError } from '../../src/errors.js';

describe('requeue-storm options', () => {
  it('accepts whole numbers in range', () => {
    expect(parseWindowMs('1500')).toBe(1500);
    expect(parseWindowMs(' 1000 ')).toBe(1000);
    expect(parseWindowMs('30000')).toBe(30000);
    expect(parsePrefetch('1')).toBe(1);
    expect(parsePrefetch('250')).toBe(250);
  });
  it('rejects anything else with a one-line UsageError naming the flag', () => {
    for (const raw of ['999', '30001', '1.5e3', '2s', '', '-1500']) {
      expect(() => parseWindowMs(raw)).toThrow(UsageError);
    }
    expect(() => parseWindowMs('10')).toThrow("--window-ms must be a whole number from 1000 to 30000 ms, got '10'");
    for (const raw of ['0', '1001', 'ten']) expect(() => parsePrefetch(raw)).toThrow(/^--prefetch must be/);
  });
});
