import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { DEFAULTS, ladderFlags, ladderOptions, parseOption } from './options.js';

describe('retry-ladder options', () => {
  it('default to the 200/400/800 ms ladder with 4 attempts (what `mqlab all` runs)', () => {
    expect(ladderOptions({})).toEqual({ baseMs: 200, maxDelayMs: 800, maxAttempts: 4, callBudgetMs: 100 });
    expect(ladderOptions({ baseMs: undefined })).toEqual(DEFAULTS);
  });

  it('take what the flags give, as numbers or strings', () => {
    expect(ladderOptions({ baseMs: 100, maxDelayMs: '250', maxAttempts: 5, callBudgetMs: 0 })).toEqual({
      baseMs: 100,
      maxDelayMs: 250,
      maxAttempts: 5,
      callBudgetMs: 0,
    });
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
    expect(() => parseOption(key, raw)).toThrow(UsageError);
    expect(() => parseOption(key, raw)).toThrow(/^--[a-z-]+ must be a whole number from \d+ to \d+, got/);
  });

  it('reject a cap below the base (it would flatten every tier)', () => {
    expect(() => ladderOptions({ baseMs: 1000 })).toThrow(UsageError);
    expect(() => ladderOptions({ baseMs: 1000 })).toThrow('--max-delay-ms (800) must be at least --base-ms (1000)');
  });

  it('offer one flag per option, each parsing through the same rules', () => {
    expect(ladderFlags.map((f) => f.flags)).toEqual(['--base-ms <ms>', '--max-delay-ms <ms>', '--max-attempts <n>', '--call-budget-ms <ms>']);
    expect(ladderFlags[2].parse!('6')).toBe(6);
    expect(() => ladderFlags[2].parse!('x')).toThrow(UsageError);
  });
});
