/**
 * Where a check reads the consumer's business effects: `--effects SQL`, a query returning one row per
 * effect whose first column is the message id, or — without it — the consumer's own log lines on
 * stdout, `status=business_committed messageId=<id>` (key=value, in any order, anywhere in a line).
 */
import type { Db } from '../db/client.js';
import { UsageError } from '../core/errors.js';
import { text } from '../core/text.js';

export interface Effects {
  readonly kind: 'sql' | 'log';
  /** the effects now, by message id */
  counts(): Promise<Map<string, number>>;
  /** a line the consumer printed on stdout */
  line(line: string): void;
}

/** the message id of a `status=business_committed messageId=…` line, else null */
export function committedId(line: string): string | null {
  if (!/(?:^|\s)status=business_committed(?:\s|$)/.test(line)) return null;
  return /(?:^|\s)messageId=(\S+)/.exec(line)?.[1] ?? null;
}

export function logEffects(): Effects {
  const seen = new Map<string, number>();
  return {
    kind: 'log',
    counts: () => Promise.resolve(new Map(seen)),
    line(line) {
      const id = committedId(line);
      if (id !== null) seen.set(id, (seen.get(id) ?? 0) + 1);
    },
  };
}

export function sqlEffects(db: Db, sql: string): Effects {
  return {
    kind: 'sql',
    async counts() {
      const rows = await db.unsafe(sql).values();
      const out = new Map<string, number>();
      for (const row of rows as unknown[][]) {
        const id = row[0];
        if (id === null || id === undefined) continue;
        const key = text(id);
        out.set(key, (out.get(key) ?? 0) + 1);
      }
      return out;
    },
    line() {},
  };
}

/** the effects query failed: a usage error (a query that does not run is not a FAIL of the consumer) */
export function effectsFailed(err: unknown, sql: string): UsageError {
  return new UsageError(
    `--effects failed: ${(err as Error).message} (${sql})`,
    'give a SELECT that returns one row per business effect, the message id first: --effects "SELECT message_id FROM orders"',
  );
}

/** what appeared between two snapshots: `after` − `before`, by id (rows that went are not counted) */
export function delta(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [id, n] of after) {
    const d = n - (before.get(id) ?? 0);
    if (d > 0) out.set(id, d);
  }
  return out;
}
