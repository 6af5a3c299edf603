import { afterEach, describe, expect, it, vi } from 'vitest';
import { heldDeadline, holdCounter } from './held-deadline.js';

describe('a bound that leaves out the time held at checkpoints', () => {
  afterEach(() => vi.useRealTimers());
  const now = () => Date.now();

  it('fires after its time outside holds: a 20 s hold moves a 15 s bound to 35 s, and never fires during it', async () => {
    vi.useFakeTimers();
    const holds = holdCounter(now);
    const fired: number[] = [];
    const t0 = now();
    heldDeadline(15_000, holds, () => fired.push(now() - t0), now);
    await vi.advanceTimersByTimeAsync(5_000);
    let release = () => {};
    const held = holds.hold(new Promise<void>((r) => (release = r)));
    await vi.advanceTimersByTimeAsync(20_000); // 25 s in, 5 s of them outside the hold
    expect(fired).toEqual([]);
    expect(holds.active()).toBe(true);
    release();
    await held;
    expect(holds.totalMs()).toBe(20_000);
    await vi.advanceTimersByTimeAsync(9_900);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeGreaterThanOrEqual(35_000);
    expect(fired[0]).toBeLessThanOrEqual(35_100);
  });

  it('a hold past the bound: fires only once the hold ends and its time is up', async () => {
    vi.useFakeTimers();
    const holds = holdCounter(now);
    let fired = 0;
    heldDeadline(1_000, holds, () => fired++, now);
    let release = () => {};
    const held = holds.hold(new Promise<void>((r) => (release = r)));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fired).toBe(0);
    release();
    await held;
    await vi.advanceTimersByTimeAsync(999);
    expect(fired).toBe(0);
    await vi.advanceTimersByTimeAsync(60);
    expect(fired).toBe(1);
  });

  it('overlapping holds count once; clear() stops it', async () => {
    vi.useFakeTimers();
    const holds = holdCounter(now);
    const a = holds.hold(new Promise((r) => setTimeout(r, 1_000)));
    await vi.advanceTimersByTimeAsync(500);
    const b = holds.hold(new Promise((r) => setTimeout(r, 1_000)));
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all([a, b]);
    expect(holds.totalMs()).toBe(1_500);
    let fired = 0;
    heldDeadline(100, holds, () => fired++, now).clear();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(fired).toBe(0);
  });
});
