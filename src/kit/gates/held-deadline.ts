/**
 * A bound on a process's own work that does not count the time it is held at checkpoints: a class
 * under --step (or --live, where a page's Continue releases the pause) may spend minutes at the
 * pauses of one consumer, and that must not make the consumer or its parent give up on it.
 */

/** time held at checkpoints: whether a hold is under way, and the total so far (ms, this clock) */
interface Holds {
  active(): boolean;
  totalMs(): number;
}

/** counts holds that may overlap: `hold(p)` counts while p is pending */
export function holdCounter(now: () => number = () => performance.now()): Holds & {
  hold<T>(p: Promise<T>): Promise<T>;
} {
  let open = 0;
  let since = 0;
  let total = 0;
  return {
    active: () => open > 0,
    totalMs: () => total + (open > 0 ? now() - since : 0),
    async hold(p) {
      if (open++ === 0) since = now();
      try {
        return await p;
      } finally {
        if (--open === 0) total += now() - since;
      }
    },
  };
}

/**
 * call `onExpire` once `ms` of time outside holds has passed (never during a hold); `clear()` stops it.
 * Checks again when the time left would be up, so it fires at most a few ms late, never early.
 */
export function heldDeadline(
  ms: number,
  holds: Holds,
  onExpire: () => void,
  now: () => number = () => performance.now(),
): { clear(): void } {
  const t0 = now();
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const left = ms - (now() - t0 - holds.totalMs());
    if (left <= 0 && !holds.active()) return onExpire();
    timer = setTimeout(check, Math.max(left, 50));
  };
  timer = setTimeout(check, ms);
  return { clear: () => clearTimeout(timer) };
}
