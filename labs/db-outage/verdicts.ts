/** The db-outage lab's pure pieces: what happened to the held delivery, and what was expected of it. */
import type { ConsumerRecord } from './consumer.js';

type HeldOutcome = 'redelivered' | 'kept' | 'lost';

/**
 * From the broker's flags and the commits: `redelivered` when the id came back with
 * redelivered=true and then committed; `kept` when it committed on the delivery that was held;
 * `lost` when it never committed.
 */
export function heldOutcome(record: ConsumerRecord, id: string): HeldOutcome {
  const commit = record.attempts.find((a) => a.id === id && a.ok);
  if (!commit) return 'lost';
  const back = record.deliveries.some((d) => d.id === id && d.delivery > 1 && d.redelivered);
  return back && commit.delivery > 1 ? 'redelivered' : 'kept';
}

/**
 * What the consumer's rule makes of the outage it met: when PostgreSQL was back later than the
 * hold budget after the first failure, the delivery must have been given back (redelivered);
 * clearly earlier, kept. Within `margin` (a backoff step) of the budget either is right: null.
 */
export function expectedOutcome(
  firstFailureAt: number | null,
  readyAt: number | null,
  holdBudgetMs: number,
  margin: number,
): HeldOutcome | null {
  if (firstFailureAt === null || readyAt === null) return 'kept';
  const held = readyAt - firstFailureAt;
  if (held > holdBudgetMs + margin) return 'redelivered';
  if (held < holdBudgetMs - margin) return 'kept';
  return null;
}

/** ids with no effect row, and effect rows beyond the first per id */
export function account(ids: readonly string[], rows: readonly { message_id: string; n: number }[]) {
  const count = new Map(rows.map((r) => [r.message_id, r.n]));
  return {
    lost: ids.filter((id) => !count.get(id)),
    duplicates: rows.reduce((sum, r) => sum + Math.max(0, r.n - 1), 0),
    rows: rows.reduce((sum, r) => sum + r.n, 0),
  };
}

/** ids acked before their effect committed (or acked and never committed) */
export function ackedBeforeCommit(record: ConsumerRecord): string[] {
  return record.acks
    .filter((a) => {
      const commit = record.attempts.find((t) => t.id === a.id && t.ok);
      return !commit || a.seq < commit.seq;
    })
    .map((a) => a.id);
}
