import { describe, expect, it } from 'vitest';
import { labOptions } from '../../src/lab/lab.js';
import { UsageError } from '../../src/core/errors.js';
import { meta } from './meta.js';

describe('requeue-storm options', () => {
  it('default to a 1500 ms window and prefetch 1; the floor is two windows', () => {
    expect(labOptions(meta)).toEqual({ windowMs: 1500, prefetch: 1 });
    expect(meta.floorMs).toBe(3000);
  });

  it('take a duration for --window (a bare number is ms, as --window-ms took) and a whole number for --prefetch', () => {
    expect(labOptions(meta, { windowMs: '1500', prefetch: '250' })).toEqual({ windowMs: 1500, prefetch: 250 });
    expect(labOptions(meta, { windowMs: '2s' }).windowMs).toBe(2000);
    expect(labOptions(meta, { windowMs: ' 30000 ' }).windowMs).toBe(30000);
    expect(meta.options.windowMs.aliases).toEqual(['--window-ms']);
  });

  it('refuse anything else with a one-line UsageError naming the flag', () => {
    for (const raw of ['999', '30001', '1.5e3', '31s', '', '-1500'])
      expect(() => labOptions(meta, { windowMs: raw })).toThrow(UsageError);
    expect(() => labOptions(meta, { windowMs: '10' })).toThrow("--window must be from 1s to 30s, got '10'");
    for (const raw of ['0', '1001', 'ten'])
      expect(() => labOptions(meta, { prefetch: raw })).toThrow(/^--prefetch must be/);
  });
});
