import { describe, expect, it } from 'vitest';
import { labOptions } from '../../src/lab/lab.js';
import { UsageError } from '../../src/core/errors.js';
import { ladderFloorMs } from './backoff.js';
import { meta } from './meta.js';

describe('retry-ladder options', () => {
  it('default to the 200/400/800 ms ladder with 4 attempts (what `mqlab all` runs)', () => {
    const defaults = labOptions(meta);
    expect(defaults).toEqual({ baseMs: 200, maxDelayMs: 800, maxAttempts: 4, callBudgetMs: 100 });
    expect(meta.floorMs).toBe(ladderFloorMs(defaults));
  });

  it('take durations (a bare number is ms, as the old -ms flags took) and a whole number of attempts', () => {
    expect(labOptions(meta, { baseMs: '100', maxDelayMs: '250ms', maxAttempts: '5', callBudgetMs: '0' })).toEqual({
      baseMs: 100,
      maxDelayMs: 250,
      maxAttempts: 5,
      callBudgetMs: 0,
    });
    expect(labOptions(meta, { baseMs: '1s', maxDelayMs: '2s' })).toMatchObject({ baseMs: 1000, maxDelayMs: 2000 });
  });

  it.each([
    ['baseMs', 'abc'],
    ['baseMs', '-5'],
    ['baseMs', '1.5'],
    ['baseMs', '5'],
    ['maxDelayMs', '60001'],
    ['maxAttempts', '2'],
    ['maxAttempts', '11'],
    ['callBudgetMs', ''],
  ] as const)('reject %s=%j as a usage error naming the flag', (key, raw) => {
    expect(() => labOptions(meta, { [key]: raw })).toThrow(UsageError);
    expect(() => labOptions(meta, { [key]: raw })).toThrow(/^--[a-z-]+[ :]/);
  });

  it('reject a cap below the base (it would flatten every tier)', () => {
    expect(() => labOptions(meta, { baseMs: '1000' })).toThrow(UsageError);
    expect(() => labOptions(meta, { baseMs: '1000' })).toThrow('--max-delay (800ms) must be at least --base (1000ms)');
  });

  it('keep the old flag names as hidden aliases', () => {
    expect(Object.values(meta.options).map((o) => [o.flag, o.aliases])).toEqual([
      ['--base <duration>', ['--base-ms']],
      ['--max-delay <duration>', ['--max-delay-ms']],
      ['--max-attempts <n>', undefined],
      ['--call-budget <duration>', ['--call-budget-ms']],
    ]);
  });
});
