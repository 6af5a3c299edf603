import { describe, expect, it } from 'vitest';
import { lastWriteWins, lostEvents, outcomeOf } from './versions.js';

describe('outcomeOf: the version rule', () => {
  it('applies the first version of an aggregate and every newer one', () => {
    expect(outcomeOf(1, null)).toBe('applied');
    expect(outcomeOf(2, 1)).toBe('applied');
    expect(outcomeOf(5, 2)).toBe('applied'); // a gap is not the consumer's business here
  });
  it('marks an older version stale instead of overwriting', () => {
    expect(outcomeOf(1, 2)).toBe('stale');
    expect(outcomeOf(0, 7)).toBe('stale');
  });
  it('treats the same version again as a duplicate delivery, not as stale', () => {
    expect(outcomeOf(2, 2)).toBe('duplicate');
  });
});

describe('lastWriteWins: what a naive consumer stores', () => {
  it('is the version it processed last, whatever the versions say', () => {
    expect(lastWriteWins([2, 1])).toBe(1);
    expect(lastWriteWins([1, 2])).toBe(2);
    expect(lastWriteWins([])).toBeNull();
  });
});

describe('lostEvents', () => {
  it('lists published ids found neither applied nor stale', () => {
    expect(lostEvents(['a', 'b', 'c'], ['b'], ['a'])).toEqual(['c']);
    expect(lostEvents(['a', 'b'], ['b'], ['a'])).toEqual([]);
    expect(lostEvents(['a'], [], [])).toEqual(['a']);
  });
});
