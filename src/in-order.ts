/**
 * Run work items with at most `jobs` at once, and hand each result on in the items' own order
 * (item 2's result waits for item 1's), as soon as every earlier item is done. Items start in
 * `startOrder` (e.g. the longest first). A failing item stops new starts; the items already
 * running are awaited (the caller aborts them), then the first error is thrown. Items `alone`
 * says are run after all the others, one at a time, with nothing beside them (a lab that stops a service).
 */
export interface InOrderOptions<R> {
  jobs: number;
  /** indexes of the items, in the order to start them (default: 0, 1, 2, …) */
  startOrder?: readonly number[];
  /** called with each result in item order */
  onResult(result: R, index: number): void;
  /** items that must run with nothing else running: started last, one at a time */
  alone?(index: number): boolean;
  /** called once, as soon as an item failed (e.g. to abort the others) */
  onError?(err: unknown): void;
}

export async function runInOrder<T, R>(items: readonly T[], work: (item: T, index: number) => Promise<R>, opts: InOrderOptions<R>): Promise<R[]> {
  const order = opts.startOrder ?? items.map((_, i) => i);
  if (order.length !== items.length || new Set(order).size !== items.length || order.some((i) => !(i in items))) {
    throw new Error(`startOrder must list each of the ${items.length} item indexes once`);
  }
  const done = new Map<number, R>();
  const results: R[] = [];
  let failed: { err: unknown } | undefined;
  let next = 0;
  const runItem = async (index: number): Promise<boolean> => {
    try {
      done.set(index, await work(items[index]!, index)); // startOrder holds only item indexes
    } catch (err) {
      if (!failed) {
        failed = { err };
        opts.onError?.(err);
      }
      return false;
    }
    while (!failed && done.has(results.length)) {
      const r = done.get(results.length)!; // has() just said so
      results.push(r);
      opts.onResult(r, results.length - 1);
    }
    return true;
  };
  const together = order.filter((i) => !opts.alone?.(i));
  const alone = order.filter((i) => opts.alone?.(i));
  const worker = async () => {
    for (let k = next++; k < together.length && !failed; k = next++) if (!(await runItem(together[k]!))) return;
  };
  const jobs = Math.max(1, Math.min(opts.jobs, together.length));
  await Promise.all(Array.from({ length: jobs }, worker));
  for (const index of alone) if (failed || !(await runItem(index))) break;
  if (failed) throw failed.err;
  return results;
}
