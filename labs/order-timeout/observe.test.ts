import { describe, expect, it } from 'vitest';
import { latestCheckClose } from './observe.js';

describe('order-timeout: how late a check closed, beside what the consumer was doing', () => {
  it('a check queued behind others: their handling between its deadline and its read is the busy time', () => {
    const handled = [
      { order: 'a', readMs: 1000, doneMs: 1300 },
      { order: 'b', readMs: 1300, doneMs: 1700 },
      { order: 'c', readMs: 1700, doneMs: 1800 },
    ];
    // c's deadline 900: a (1000–1300) and b (1300–1700) kept the consumer busy 700 ms of its 850 ms wait, and
    // c's own read → close 50 ms more
    expect(latestCheckClose([{ order: 'c', atMs: 1750, deadlineMs: 900 }], handled)).toEqual({ ms: 850, busyMs: 750 });
    // only the part after the deadline counts
    expect(latestCheckClose([{ order: 'c', atMs: 1750, deadlineMs: 1500 }], handled)).toEqual({ ms: 250, busyMs: 250 });
  });

  it('a consumer idle before its read (slow-consumer) is not busy: the lateness stays unexplained', () => {
    const handled = [{ order: 'a', readMs: 2000, doneMs: 2100 }];
    // only its own read → close (50 ms) is busy: 1000 ms beyond
    expect(latestCheckClose([{ order: 'a', atMs: 2050, deadlineMs: 1000 }], handled)).toEqual({ ms: 1050, busyMs: 50 });
  });

  it("the spans the consumer's process ran nothing count as busy, an instant covered twice once", () => {
    const handled = [
      { order: 'a', readMs: 1000, doneMs: 1300 },
      { order: 'c', readMs: 2200, doneMs: 2300 },
    ];
    // c due at 900, read at 2200: a's handling 1000–1300 and the stall 1200–2000 (another lab's work) cover
    // 1000–2000 once; its own read → close 50 ms
    expect(latestCheckClose([{ order: 'c', atMs: 2250, deadlineMs: 900 }], handled, [[1200, 2000]])).toEqual({
      ms: 1350,
      busyMs: 1000 + 50,
    });
  });

  it('the close reported is the one latest beyond its busy time; none: 0', () => {
    const handled = [
      { order: 'a', readMs: 100, doneMs: 600 },
      { order: 'b', readMs: 600, doneMs: 700 },
      { order: 'c', readMs: 900, doneMs: 950 },
    ];
    const closes = [
      { order: 'b', atMs: 650, deadlineMs: 50 }, // 600 late, 500 + 50 own busy: 50 beyond
      { order: 'c', atMs: 920, deadlineMs: 700 }, // 220 late, 20 own busy (b ended at 700): 200 beyond
    ];
    expect(latestCheckClose(closes, handled)).toEqual({ ms: 220, busyMs: 20 });
    expect(latestCheckClose([], handled)).toEqual({ ms: 0, busyMs: 0 });
  });
});
