/**
 * The attempt number comes from the broker's own dead-letter history (x-death), not from a
 * header the client keeps: 1 + the count of the entry (work queue, rejected). x-death[0] is the
 * newest entry, which after a retry hop is the retry queue's `expired` entry — never use it.
 */
import { deadLetterHistory, deathCount } from '../../src/kit/index.js';

export function attemptOf(headers: Record<string, unknown> | undefined, workQueue: string): number {
  return 1 + deathCount(headers, workQueue, 'rejected');
}

/** the x-death entries in the broker's order, for an event field: orders.retry:expired:2,orders.work:rejected:2 */
export function deathSummary(headers: Record<string, unknown> | undefined): string {
  const entries = deadLetterHistory(headers);
  return entries.length ? entries.map((e) => `${e.queue}:${e.reason}:${e.count}`).join(',') : 'none';
}

export interface DeathSummaryEntry {
  queue: string;
  reason: string;
  count: number;
}

export function parseDeathSummary(s: string | undefined): DeathSummaryEntry[] {
  if (!s || s === 'none') return [];
  return s.split(',').map((part) => {
    const [queue, reason, count] = part.split(':');
    if (queue === undefined || reason === undefined || count === undefined)
      throw new Error(`x-death summary part "${part}" is not queue:reason:count`);
    return { queue, reason, count: Number(count) };
  });
}

/**
 * Headers of the copy the consumer publishes to the DLQ: the application's headers, plus what
 * the consumer knows about giving up. x-headers (x-death, x-first-death-*, x-delivery-count)
 * belong to the broker and are left out: 4.x does not interpret an x-death a client publishes.
 */
export function dlqHeaders(
  headers: Record<string, unknown>,
  attempts: number,
  failedQueue: string,
  error: string,
): Record<string, unknown> {
  const own = Object.fromEntries(Object.entries(headers).filter(([k]) => !k.startsWith('x-')));
  return { ...own, attempts, failedQueue, error };
}
