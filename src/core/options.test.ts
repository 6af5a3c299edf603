import { describe, expect, it } from 'vitest';
import { duration, integer, oneOf, parseOptions, type OptionSpecs } from './options.js';
import { UsageError } from './errors.js';

interface Demo {
  waitMs: number;
  count: number;
  mode?: 'A' | 'B';
}
const specs: OptionSpecs<Demo> = {
  waitMs: {
    flag: '--wait <duration>',
    description: 'a wait',
    default: '2s',
    aliases: ['--wait-ms'],
    parse: duration({ min: 0, max: 60_000, bare: 'ms' }),
  },
  count: { flag: '--count <n>', description: 'how many', default: '3', parse: integer(1, 10) },
  mode: { flag: '--mode <mode>', description: 'A or B', parse: oneOf(['A', 'B'] as const) },
};

describe('parseOptions', () => {
  it('parses the defaults like given values; an option without a default stays absent', () => {
    expect(parseOptions(specs)).toEqual({ waitMs: 2000, count: 3 });
  });

  it('parses what was given', () => {
    expect(parseOptions(specs, { waitMs: '500ms', count: '10', mode: 'b' })).toEqual({
      waitMs: 500,
      count: 10,
      mode: 'B',
    });
  });

  it('names the flag (without its argument) in a one-line usage error', () => {
    expect(() => parseOptions(specs, { count: '11' })).toThrow("--count must be a whole number from 1 to 10, got '11'");
    expect(() => parseOptions(specs, { waitMs: '2m' })).toThrow("--wait must be from 0ms to 1m, got '2m'");
    expect(() => parseOptions(specs, { waitMs: 'soon' })).toThrow(
      "--wait must be a duration (e.g. 500ms, 2s, 90m, 12h, 30d; a bare number is ms), got 'soon'",
    );
    expect(() => parseOptions(specs, { mode: 'C' })).toThrow(UsageError);
  });
});

describe('duration', () => {
  const ms = duration({ min: 0, max: 30 * 86_400_000, bare: 's' });
  it('accepts ms, s, m, h and d; a bare number in the unit the flag had before', () => {
    expect(['500ms', '2s', '90m', '12h', '30d', '0', '0ms', '240', '0.5'].map((r) => ms(r, '--t'))).toEqual([
      500, 2000, 5_400_000, 43_200_000, 2_592_000_000, 0, 0, 240_000, 500,
    ]);
  });
  it('without a bare unit, a number needs one', () => {
    expect(() => duration({ min: 1, max: 1e9 })('30', '--older-than')).toThrow(UsageError);
  });
});
