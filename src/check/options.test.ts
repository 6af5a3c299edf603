import { describe, expect, it } from 'vitest';
import { parseCheckFlags, parseGroups, CHECK_DEFAULTS } from './options.js';
import { committedId } from './effects.js';
import { rng } from './seed.js';

describe('mqlab check options', () => {
  const flags = { consumer: 'node c.js', ...CHECK_DEFAULTS };
  it('takes every group by default, --only keeps the run order', () => {
    expect(parseGroups(undefined)).toEqual([
      'crash',
      'duplicate',
      'poison',
      'consumer-timeout',
      'broker-restart',
      'db-outage',
    ]);
    expect(parseGroups('poison, crash')).toEqual(['crash', 'poison']);
  });
  it('refuses an unknown group, a missing consumer and an empty query in one line', () => {
    expect(() => parseGroups('crash,chaos')).toThrow(/--only takes check groups, got 'chaos'/);
    expect(() => parseCheckFlags({ ...flags, consumer: ' ' })).toThrow(/--consumer is missing/);
    expect(() => parseCheckFlags({ ...flags, effects: '' })).toThrow(/--effects is empty/);
  });
  it('keeps a given seed and draws one otherwise', () => {
    expect(parseCheckFlags({ ...flags, seed: '42' }).seed).toBe(42);
    expect(parseCheckFlags(flags).seed).toBeGreaterThan(0);
  });
});

describe('the consumer log lines', () => {
  it('reads a committed id from a key=value line, in any order', () => {
    expect(committedId('[consumer] status=business_committed messageId=chk-1')).toBe('chk-1');
    expect(committedId('messageId=chk-2 lab=x status=business_committed')).toBe('chk-2');
    expect(committedId('status=duplicate_skipped messageId=chk-1')).toBeNull();
  });
});

describe('the seed', () => {
  it('gives the same numbers for the same seed', () => {
    const a = rng(7);
    const b = rng(7);
    expect([a.int(1, 3), a.int(1, 3), a.shuffle([1, 2, 3, 4])]).toEqual([
      b.int(1, 3),
      b.int(1, 3),
      b.shuffle([1, 2, 3, 4]),
    ]);
  });
});
