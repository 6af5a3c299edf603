import { Interrupted, TimedOut } from './errors.js';

/** sleep that ends early with Interrupted when `signal` aborts */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Interrupted());
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new Interrupted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** settle with `p`, or fail with TimedOut (a LabError) naming `what` after `ms`, or Interrupted on abort */
export function within<T>(p: Promise<T>, ms: number, what: string, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) return reject(new Interrupted());
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', onAbort);
    };
    const t = setTimeout(() => {
      done();
      reject(new TimedOut(ms, what));
    }, ms);
    const onAbort = () => {
      done();
      reject(new Interrupted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        done();
        resolve(v);
      },
      (e: unknown) => {
        done();
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on p's own reason unchanged
        reject(e);
      },
    );
  });
}

/** gaps between consecutive instants (ms), rounded to whole ms: [10, 513.4, 1017.9] → [503, 505] */
export function gapsMs(instants: readonly number[]): number[] {
  return instants.slice(1).map((t, i) => Math.round(t - instants[i]!)); // i < instants.length - 1
}

/** a promise with its resolve/reject outside, for "done when the consumer saw X" */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/**
 * Wait for `settled` for as long as something keeps happening: resolves false once it settled, true
 * when nothing moved for `idleMs` (`lastActivity()`: the last progress, on `clock.now()`); rejects with
 * `settled`'s rejection. A busy machine makes progress slower, not absent, so waiting on idleness
 * instead of a fixed deadline keeps the verdict independent of the machine's speed.
 */
export async function settledOrIdle(
  settled: Promise<unknown>,
  lastActivity: () => number,
  idleMs: number,
  clock: { now(): number; sleep(ms: number): Promise<void> },
): Promise<boolean> {
  let done = false;
  settled.then(
    () => (done = true),
    () => {}, // rejected: the race below rethrows it
  );
  for (;;) {
    if (done) return false;
    const left = lastActivity() + idleMs - clock.now();
    if (left <= 0) return true;
    await Promise.race([settled, clock.sleep(Math.min(left, 100))]);
  }
}

/**
 * The spans in which this process ran no timer, on the wall clock (epoch ms, as the database's
 * timestamps on this machine): a timer every `tickMs`; a tick later than `tickMs` + `slackMs` after the
 * one before marks [the one before + `tickMs`, this tick) as stalled — other work in the same process
 * (another lab of `mqlab all --jobs`), a machine too loaded to schedule it. A lab that bounds how late
 * its own code acted takes these spans off; an idle wait (a timer the lab sleeps on) is no stall.
 * (perf_hooks' monitorEventLoopDelay, which delayed-retry reads, gives the worst delay but not when.)
 */
export function watchStalls(tickMs = 20, slackMs = 10): { spans(): [number, number][]; stop(): void } {
  const spans: [number, number][] = [];
  let last = Date.now();
  const timer = setInterval(() => {
    const now = Date.now();
    if (now - last > tickMs + slackMs) spans.push([last + tickMs, now]);
    last = now;
  }, tickMs);
  timer.unref(); // a lab that throws before stop() leaves nothing that holds the process open
  return {
    spans: () => [...spans],
    stop: () => clearInterval(timer),
  };
}

/** how much of [from, to] the spans cover, each instant once (overlapping spans are not summed twice) */
export function coveredMs(spans: readonly (readonly [number, number])[], from: number, to: number): number {
  const clipped = spans
    .map(([a, b]) => [Math.max(a, from), Math.min(b, to)] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let total = 0;
  let end = from;
  for (const [a, b] of clipped) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}
