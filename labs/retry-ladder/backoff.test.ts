import { describe, expect, it } from 'vitest';
import {
  afterFailure,
  delayAfter,
  ladderFloorMs,
  onArrival,
  parkOnSecondFailureDeadlineMs,
  retryDelays,
  roomyDeadlineMs,
  tiers,
  type Backoff,
} from './backoff.js';

const lab: Backoff = { baseMs: 200, maxDelayMs: 800, maxAttempts: 4, callBudgetMs: 100 };
const capped: Backoff = { baseMs: 100, maxDelayMs: 250, maxAttempts: 6, callBudgetMs: 50 };

describe('delayAfter: min(maxDelay, d × 2^(attempt-1))', () => {
  it('doubles from the base and stops at the cap', () => {
    expect([1, 2, 3, 4, 5].map((n) => delayAfter(n, lab))).toEqual([200, 400, 800, 800, 800]);
    expect([1, 2, 3].map((n) => delayAfter(n, { baseMs: 5000, maxDelayMs: 60_000 }))).toEqual([5000, 10_000, 20_000]);
  });

  it('is the cap itself when the cap is below the base', () => {
    expect(delayAfter(1, { baseMs: 500, maxDelayMs: 300 })).toBe(300);
  });

  it('rejects attempts that are not whole numbers from 1', () => {
    expect(() => delayAfter(0, lab)).toThrow(RangeError);
    expect(() => delayAfter(1.5, lab)).toThrow(RangeError);
  });

  it('does not overflow into Infinity for late attempts', () => {
    expect(delayAfter(2000, lab)).toBe(800);
  });
});

describe('the ladder', () => {
  it('has one wait per retry, max-attempts minus one of them', () => {
    expect(retryDelays(lab)).toEqual([200, 400, 800]);
    expect(retryDelays(capped)).toEqual([100, 200, 250, 250, 250]);
  });

  it('declares one delay queue per distinct wait (the capped tier is shared)', () => {
    expect(tiers(lab)).toEqual([200, 400, 800]);
    expect(tiers(capped)).toEqual([100, 200, 250]);
  });

  it('has a floor of every wait on the longest path', () => {
    expect(ladderFloorMs(lab)).toBe(1400);
    expect(ladderFloorMs(capped)).toBe(1050);
  });
});

describe('afterFailure: the deadline wins over the count', () => {
  const now = 1_000_000;

  it('retries into the next tier while attempts and time are left', () => {
    expect(afterFailure(1, now, now + 10_000, lab)).toEqual({ action: 'retry', nextAttempt: 2, delayMs: 200 });
    expect(afterFailure(3, now, now + 10_000, lab)).toEqual({ action: 'retry', nextAttempt: 4, delayMs: 800 });
  });

  it('parks when the time left does not cover the next wait plus one call, attempts notwithstanding', () => {
    expect(afterFailure(2, now, now + 499, lab)).toEqual({
      action: 'park',
      reason: 'deadline',
      remainingMs: 499,
      neededMs: 500,
    });
    expect(afterFailure(1, now, now - 5, lab)).toMatchObject({ action: 'park', remainingMs: -5 });
  });

  it('retries when the time left covers exactly the wait plus the call', () => {
    expect(afterFailure(2, now, now + 500, lab)).toMatchObject({ action: 'retry', delayMs: 400 });
  });

  it('is exhausted after the last attempt, whatever the deadline', () => {
    expect(afterFailure(4, now, now + 10_000, lab)).toEqual({ action: 'exhausted', attempts: 4 });
    expect(afterFailure(4, now, now - 1, lab)).toEqual({ action: 'exhausted', attempts: 4 });
  });

  it('counts the call budget: without it a retry that cannot finish would be scheduled', () => {
    expect(afterFailure(1, now, now + 250, { ...lab, callBudgetMs: 0 }).action).toBe('retry');
    expect(afterFailure(1, now, now + 250, lab).action).toBe('park');
  });
});

describe('onArrival: queue time counts against the deadline', () => {
  it('calls while one call still fits, parks otherwise', () => {
    expect(onArrival(1000, 1100, lab)).toEqual({ action: 'call' });
    expect(onArrival(1000, 1099, lab)).toEqual({ action: 'park', reason: 'deadline', remainingMs: 99, neededMs: 100 });
  });
});

describe('the scenario deadlines', () => {
  for (const b of [lab, capped, { baseMs: 10, maxDelayMs: 10, maxAttempts: 3, callBudgetMs: 0 }]) {
    it(`park the short-deadline message on its second failure, with latency up to half the second wait (${JSON.stringify(b)})`, () => {
      const deadline = parkOnSecondFailureDeadlineMs(b);
      const slack = Math.floor(delayAfter(2, b) / 2);
      // first failure right away or late by up to the margin: retry
      expect(afterFailure(1, 0, deadline, b).action).toBe('retry');
      expect(afterFailure(1, slack, deadline, b).action).toBe('retry');
      // second failure no sooner than the first tier's TTL: always parked, before the last attempt
      expect(afterFailure(2, delayAfter(1, b), deadline, b).action).toBe('park');
      expect(b.maxAttempts).toBeGreaterThan(2);
    });

    it(`never bind the roomy deadline before the count runs out (${JSON.stringify(b)})`, () => {
      const deadline = roomyDeadlineMs(b);
      let t = 0;
      for (let attempt = 1; attempt < b.maxAttempts; attempt++) {
        expect(afterFailure(attempt, t, deadline, b).action).toBe('retry');
        t += delayAfter(attempt, b) + b.callBudgetMs;
      }
      expect(afterFailure(b.maxAttempts, t, deadline, b).action).toBe('exhausted');
    });
  }
});
