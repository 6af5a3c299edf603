import { describe, expect, it } from 'vitest';
import { appliedOf, overlapped } from './verdicts.js';
import type { ReleaseOutcome } from './release.js';

const o = (attempt: number, pid: number, stockAdded: number, blockedPid?: number): ReleaseOutcome => ({
  attempt,
  changed: stockAdded,
  stockAdded,
  pid,
  blockedPid,
});

describe('appliedOf', () => {
  it('counts the attempts that gave stock back', () => {
    expect(appliedOf([o(1, 10, 1), o(2, 11, 0)])).toBe(1);
    expect(appliedOf([o(1, 10, 1), o(2, 11, 1)])).toBe(2);
    expect(appliedOf([])).toBe(0);
  });
});

describe('overlapped', () => {
  it('holds when the lock holder saw the other attempt’s backend waiting', () => {
    expect(overlapped([o(1, 10, 0), o(2, 11, 1, 10)])).toBe(true);
  });
  it('fails when nobody waited, someone else waited, or both ran on one connection', () => {
    expect(overlapped([o(1, 10, 1), o(2, 11, 0)])).toBe(false);
    expect(overlapped([o(1, 10, 1, 99), o(2, 11, 0)])).toBe(false);
    expect(overlapped([o(1, 10, 1, 10), o(2, 10, 0)])).toBe(false);
    expect(overlapped([o(1, 10, 1, 11)])).toBe(false);
  });
});
