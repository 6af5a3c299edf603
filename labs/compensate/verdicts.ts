/** What a set of release attempts shows: how many gave stock back, and whether two really overlapped. */
import type { ReleaseOutcome } from './release.js';

/** attempts that gave the stock back */
export const appliedOf = (outcomes: readonly ReleaseOutcome[]): number =>
  outcomes.filter((o) => o.stockAdded === 1).length;

/**
 * Two attempts overlapped: the one that held the row lock saw the other's backend (a different
 * connection) waiting on it before it committed.
 */
export function overlapped(outcomes: readonly ReleaseOutcome[]): boolean {
  const holder = outcomes.find((o) => o.blockedPid !== undefined);
  const [other, ...more] = outcomes.filter((o) => o !== holder);
  return (
    holder !== undefined &&
    other !== undefined &&
    more.length === 0 &&
    other.pid === holder.blockedPid &&
    other.pid !== holder.pid
  );
}
