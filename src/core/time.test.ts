import { describe, expect, it } from 'vitest';
import { coveredMs, watchStalls } from './time.js';

describe('coveredMs: how much of a window some spans cover', () => {
  it('clips each span to the window and counts overlaps once', () => {
    expect(coveredMs([], 0, 100)).toBe(0);
    expect(coveredMs([[-50, 30]], 0, 100)).toBe(30);
    expect(coveredMs([[90, 200]], 0, 100)).toBe(10);
    expect(
      coveredMs(
        [
          [10, 40],
          [20, 50],
          [45, 60],
        ],
        0,
        100,
      ),
    ).toBe(50);
    expect(
      coveredMs(
        [
          [70, 80],
          [10, 20],
        ],
        0,
        100,
      ),
    ).toBe(20);
    expect(
      coveredMs(
        [
          [10, 20],
          [12, 15],
        ],
        0,
        100,
      ),
    ).toBe(10);
    expect(coveredMs([[200, 300]], 0, 100)).toBe(0);
  });
});

describe('watchStalls: the spans in which this process ran no timer', () => {
  it('a blocked event loop is a stall', async () => {
    const w = watchStalls(20, 10);
    try {
      await new Promise((r) => setTimeout(r, 60));
      const from = Date.now();
      while (Date.now() - from < 250); // the process cannot run its timers
      const to = Date.now();
      await new Promise((r) => setTimeout(r, 40));
      // the block is stalled from one tick after the last tick before it: at least 250 − 20 − 10 ms of it
      expect(coveredMs(w.spans(), from, to)).toBeGreaterThanOrEqual(250 - 30);
    } finally {
      w.stop();
    }
  });
});
