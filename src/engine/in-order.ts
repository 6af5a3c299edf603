/**
 * Run work items with at most `jobs` at once, and hand each result on in the items' own order
 * (item 2's result waits for item 1's), as soon as every earlier item is done. Items start in
 * `startOrder` (e.g. the longest first). A failing item stops new starts; the items already
 * running are awaited (the caller aborts them), then the first error is thrown.
 */
interface InOrderOptions<R> {
  jobs: number;
  /** indexes of the items, in the order to start them (default: 0, 1, 2, …) */
  startOrder?: readonly number[] | undefined;
  /** called with each result in item order */
  onResult(result: R, index: number): void;
  /** called once, as soon as an item failed (e.g. to abort the others) */
  onError?(err: unknown): void;
  /** items that run alone: each waits until nothing else runs, and nothing starts beside it (start them last) */
  alone?(index: number): boolean;
}

export async function runInOrder<T, R>(
  items: readonly T[],
  work: (item: T, index: number) => Promise<R>,
  opts: InOrderOptions<R>,
): Promise<R[]> {
  const order = opts.startOrder ?? items.map((_, i) => i);
  if (order.length !== items.length || new Set(order).size !== items.length || order.some((i) => !(i in items))) {
    throw new Error(`startOrder must list each of the ${items.length} item indexes once`);
  }
  const done = new Map<number, R>();
  const results: R[] = [];
  let failed: { err: unknown } | undefined;
  let next = 0;
  let running = 0;
  let soloTurn: Promise<void> = Promise.resolve();
  const idle: (() => void)[] = [];
  const finished = () => {
    running--;
    if (running === 0) for (const wake of idle.splice(0)) wake();
  };
  const nothingRunning = () => (running === 0 ? Promise.resolve() : new Promise<void>((r) => idle.push(r)));
  const worker = async () => {
    for (let k = next++; k < order.length && !failed; k = next++) {
      const index = order[k]!; // k < order.length
      let release = () => {};
      if (opts.alone?.(index)) {
        const before = soloTurn;
        soloTurn = new Promise<void>((r) => (release = r));
        await before;
        await nothingRunning();
      }
      running++;
      try {
        done.set(index, await work(items[index]!, index)); // startOrder holds only item indexes
      } catch (err) {
        if (!failed) {
          failed = { err };
          opts.onError?.(err);
        }
        return;
      } finally {
        finished();
        release();
      }
      while (!failed && done.has(results.length)) {
        const r = done.get(results.length)!; // has() just said so
        results.push(r);
        opts.onResult(r, results.length - 1);
      }
    }
  };
  const jobs = Math.max(1, Math.min(opts.jobs, items.length));
  await Promise.all(Array.from({ length: jobs }, worker));
  if (failed) throw failed.err;
  return results;
}
