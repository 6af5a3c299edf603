/**
 * The retry ladder's arithmetic and its one decision, pure (no broker, no clock of its own).
 *
 * The backoff (docs/labs/retry-ladder.md): wait min(maxDelay, d × 2^(attempt-1)) after a failed
 * attempt; the number of attempts and the business deadline limit retries together, and the
 * deadline wins: when the time left cannot cover the next wait plus one call, another try is
 * pointless, so the message is parked.
 * The ladder: one delay queue per tier, each with one fixed TTL (expiry is head-only).
 */

export interface Backoff {
  /** d: the wait after the first failed attempt */
  baseMs: number;
  /** the cap on any single wait */
  maxDelayMs: number;
  /** attempts in all, the first one included */
  maxAttempts: number;
  /** the time one call may take; the deadline must still cover it after the wait */
  callBudgetMs: number;
}

/** the wait after failed attempt `attempt` (1-based): min(maxDelay, base × 2^(attempt-1)) */
export function delayAfter(attempt: number, b: Pick<Backoff, 'baseMs' | 'maxDelayMs'>): number {
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be an integer >= 1, got ${attempt}`);
  return Math.min(b.maxDelayMs, b.baseMs * 2 ** (attempt - 1));
}

/** the wait before each retry, in order: after attempts 1 … maxAttempts-1 */
export function retryDelays(b: Backoff): number[] {
  return Array.from({ length: Math.max(0, b.maxAttempts - 1) }, (_, i) => delayAfter(i + 1, b));
}

/** the distinct waits, ascending: one delay queue (one fixed TTL) each */
export function tiers(b: Backoff): number[] {
  return [...new Set(retryDelays(b))].sort((x, y) => x - y);
}

/** the waits of the longest path: a message that climbs every tier and is exhausted */
export function ladderFloorMs(b: Backoff): number {
  return retryDelays(b).reduce((sum, d) => sum + d, 0);
}

export type Decision =
  | { action: 'retry'; nextAttempt: number; delayMs: number }
  | { action: 'exhausted'; attempts: number }
  | { action: 'park'; reason: 'deadline'; remainingMs: number; neededMs: number };

/**
 * Attempt `attempt` just failed at `nowMs`. With attempts left, retry only when the time left
 * before `deadlineMs` covers the next wait plus one call; otherwise park (the deadline wins over
 * the count). Without attempts left the message is exhausted: no further try is scheduled, so
 * there is no deadline to weigh.
 */
export function afterFailure(attempt: number, nowMs: number, deadlineMs: number, b: Backoff): Decision {
  if (attempt >= b.maxAttempts) return { action: 'exhausted', attempts: attempt };
  const delayMs = delayAfter(attempt, b);
  const remainingMs = deadlineMs - nowMs;
  const neededMs = delayMs + b.callBudgetMs;
  if (remainingMs < neededMs) return { action: 'park', reason: 'deadline', remainingMs, neededMs };
  return { action: 'retry', nextAttempt: attempt + 1, delayMs };
}

type Arrival = { action: 'call' } | { action: 'park'; reason: 'deadline'; remainingMs: number; neededMs: number };

/** A delivery arrived at `nowMs`: queue time counts against the deadline, so check it before calling. */
export function onArrival(nowMs: number, deadlineMs: number, b: Pick<Backoff, 'callBudgetMs'>): Arrival {
  const remainingMs = deadlineMs - nowMs;
  return remainingMs < b.callBudgetMs
    ? { action: 'park', reason: 'deadline', remainingMs, neededMs: b.callBudgetMs }
    : { action: 'call' };
}

/**
 * A deadline that lets the first retry through and parks the message when attempt 2 fails:
 * after attempt 1 (at ~0 ms) it needs delay1 + budget; after attempt 2 (at >= delay1) it would
 * need delay2 + budget but has at most budget + delay2/2 left. Half of delay2 is the margin for
 * broker and consumer latency on the first decision.
 */
export function parkOnSecondFailureDeadlineMs(b: Backoff): number {
  return delayAfter(1, b) + b.callBudgetMs + Math.floor(delayAfter(2, b) / 2);
}

/**
 * a deadline that never binds in the lab: every wait and every call, plus ten minutes, so even a
 * machine busy enough to deliver a 200 ms tier seconds late (ten runs at once on two cores) stays inside it
 */
export function roomyDeadlineMs(b: Backoff, slackMs = 600_000): number {
  return ladderFloorMs(b) + b.maxAttempts * b.callBudgetMs + slackMs;
}
