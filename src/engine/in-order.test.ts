import { describe, expect, it } from 'vitest';
import { runInOrder } from './in-order.js';

/** work that ends when the test says so, recording the order of starts */
function gated(n: number) {
  const started: number[] = [];
  const release: ((v: string) => void)[] = [];
  const fail: ((e: Error) => void)[] = [];
  const work = (item: string, i: number) =>
    new Promise<string>((resolve, reject) => {
      started.push(i);
      release[i] = () => resolve(item.toUpperCase());
      fail[i] = reject;
    });
  const tick = () => new Promise((r) => setImmediate(r));
  return {
    started,
    release: (i: number) => release[i]!(''),
    fail: (i: number, e: Error) => fail[i]!(e),
    work,
    tick,
    n,
  };
}

describe('runInOrder', () => {
  it('runs at most `jobs` at once and hands results on in item order, as soon as the prefix is done', async () => {
    const g = gated(4);
    const seen: string[] = [];
    const run = runInOrder(['a', 'b', 'c', 'd'], g.work, { jobs: 2, onResult: (r, i) => seen.push(`${i}:${r}`) });
    await g.tick();
    expect(g.started).toEqual([0, 1]);
    g.release(1); // b is done first, but waits for a
    await g.tick();
    expect(g.started).toEqual([0, 1, 2]);
    expect(seen).toEqual([]);
    g.release(0);
    await g.tick();
    expect(seen).toEqual(['0:A', '1:B']);
    g.release(2);
    await g.tick();
    g.release(3);
    expect(await run).toEqual(['A', 'B', 'C', 'D']);
    expect(seen).toEqual(['0:A', '1:B', '2:C', '3:D']);
  });

  it('starts items in startOrder, still reporting in item order', async () => {
    const g = gated(3);
    const seen: number[] = [];
    const run = runInOrder(['a', 'b', 'c'], g.work, {
      jobs: 1,
      startOrder: [2, 0, 1],
      onResult: (_, i) => seen.push(i),
    });
    for (const i of [2, 0, 1]) {
      await g.tick();
      g.release(i);
    }
    await run;
    expect(g.started).toEqual([2, 0, 1]);
    expect(seen).toEqual([0, 1, 2]);
  });

  it('one failure starts nothing new, waits for the running items, then throws the first error', async () => {
    const g = gated(4);
    const errors: unknown[] = [];
    const run = runInOrder(['a', 'b', 'c', 'd'], g.work, {
      jobs: 2,
      onResult: () => {},
      onError: (e) => errors.push(e),
    });
    await g.tick();
    g.fail(0, new Error('broker gone'));
    await g.tick();
    expect(errors).toHaveLength(1);
    expect(g.started).toEqual([0, 1]);
    let settled = false;
    void run.catch(() => (settled = true));
    await g.tick();
    expect(settled).toBe(false); // b is still running
    g.fail(1, new Error('interrupted'));
    await expect(run).rejects.toThrow('broker gone');
    expect(g.started).toEqual([0, 1]);
  });

  it('runs an `alone` item only when nothing else runs, and nothing beside it (disruptive labs)', async () => {
    const g = gated(4);
    const run = runInOrder(['a', 'b', 'c', 'd'], g.work, {
      jobs: 3,
      startOrder: [0, 1, 2, 3],
      alone: (i) => i >= 2,
      onResult: () => {},
    });
    await g.tick();
    expect(g.started).toEqual([0, 1]); // c waits for a and b; a free worker does not start d beside it
    g.release(0);
    await g.tick();
    expect(g.started).toEqual([0, 1]);
    g.release(1);
    await g.tick();
    expect(g.started).toEqual([0, 1, 2]);
    await g.tick();
    expect(g.started).toEqual([0, 1, 2]); // d waits for c
    g.release(2);
    await g.tick();
    await g.tick();
    expect(g.started).toEqual([0, 1, 2, 3]);
    g.release(3);
    expect(await run).toEqual(['A', 'B', 'C', 'D']);
  });

  it('refuses a startOrder that is not a permutation of the items', async () => {
    await expect(
      runInOrder(['a', 'b'], (x) => Promise.resolve(x), { jobs: 1, startOrder: [0, 0], onResult: () => {} }),
    ).rejects.toThrow('each of the 2');
  });
});
