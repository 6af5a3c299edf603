/**
 * The archive tables' SQL: archive a dead letter idempotently (or record why the table refused it),
 * move a row through its status lifecycle, purge old rows, list rows. Shared by the archiver
 * process, the lab and the `mqlab archive purge|list` tools.
 */
import { type Db, deadLetterHistory, must } from '../../src/kit/index.js';
import { archiveRecord, type Letter } from './letter.js';
import type { ArchiveNames, ArchiveStatus } from './names.js';

type ArchiveOutcome =
  | { outcome: 'archived'; businessId: string }
  | { outcome: 'duplicate'; businessId: string }
  | { outcome: 'failed'; sqlState: string; error: string };

/** SQLSTATE classes 22 (data exception) and 23 (integrity constraint violation): the table refuses the letter */
const refused = (code: unknown): code is string => typeof code === 'string' && /^2[23]/.test(code);

/**
 * Insert the letter, once per business id (ON CONFLICT DO NOTHING). A letter the table refuses
 * goes to the failure table instead, so the caller can ack it. Any other error (the database is
 * unreachable, …) is thrown: the caller must not ack, and the letter stays in the DLQ.
 */
export async function archiveLetter(
  db: Db,
  name: ArchiveNames,
  letter: Letter,
  { dedupe = true } = {},
): Promise<ArchiveOutcome> {
  const r = archiveRecord(letter);
  const onConflict = dedupe ? db`ON CONFLICT (business_id) DO NOTHING` : db``; // without: the broken variant no-dedupe
  try {
    const rows = await db`
      INSERT INTO ${db(name.archive)} (business_id, message_id, payload, original_exchange, original_routing_key,
        first_death_reason, first_death_queue, first_death_at, last_death_reason, last_death_queue, last_death_at, attempts)
      VALUES (${r.businessId}, ${r.messageId}, ${r.payload}, ${r.originalExchange}, ${r.originalRoutingKey},
        ${r.firstDeathReason}, ${r.firstDeathQueue}, ${r.firstDeathAt}, ${r.lastDeathReason}, ${r.lastDeathQueue}, ${r.lastDeathAt}, ${r.attempts})
      ${onConflict}
      RETURNING id`;
    return { outcome: rows.length === 1 ? 'archived' : 'duplicate', businessId: r.businessId! };
  } catch (err) {
    const e = err as { code?: unknown; message?: string };
    if (!refused(e.code)) throw err;
    const error = String(e.message);
    await db`
      INSERT INTO ${db(name.failure)} (message_id, payload, death_history, sql_state, error)
      VALUES (${r.messageId}, ${r.payload}, ${db.json(JSON.parse(JSON.stringify(deadLetterHistory(letter.headers))) as Parameters<typeof db.json>[0])}, ${e.code}, ${error})
      ON CONFLICT (message_id) DO NOTHING`;
    return { outcome: 'failed', sqlState: e.code, error };
  }
}

/** move one row to `status`; the table's trigger refuses anything but ARCHIVED → IN_PROGRESS → FIXED */
export async function setStatus(
  db: Db,
  name: ArchiveNames,
  businessId: string,
  status: ArchiveStatus,
): Promise<string | null> {
  const rows =
    await db`UPDATE ${db(name.archive)} SET status = ${status} WHERE business_id = ${businessId} RETURNING status`;
  const [row] = rows;
  return row ? String(row.status) : null;
}

interface PurgeResult {
  /** rows archived before this instant (the database's now() minus the age) were deleted */
  cutoff: Date;
  purged: string[];
  kept: number;
}

/** retention: delete the rows archived more than `olderThanMs` ago, by the database's clock */
export async function purgeArchive(db: Db, name: ArchiveNames, olderThanMs: number): Promise<PurgeResult> {
  const rows = await db`
    WITH c AS (SELECT now() - make_interval(secs => ${olderThanMs / 1000}::float8) AS cutoff),
    gone AS (DELETE FROM ${db(name.archive)} a USING c WHERE a.archived_at < c.cutoff RETURNING a.business_id)
    SELECT (SELECT cutoff FROM c) AS cutoff,
           (SELECT coalesce(json_agg(business_id ORDER BY business_id), '[]') FROM gone) AS purged,
           (SELECT count(*)::int FROM ${db(name.archive)}) AS total`;
  const row = must(rows[0], 'the purge summary row');
  const purged = row.purged as string[];
  return { cutoff: row.cutoff as Date, purged, kept: Number(row.total) - purged.length };
}

export interface ArchiveRow {
  business_id: string;
  message_id: string | null;
  payload: string;
  original_exchange: string;
  original_routing_key: string;
  first_death_reason: string;
  first_death_queue: string;
  first_death_at: Date | null;
  last_death_reason: string;
  last_death_queue: string;
  last_death_at: Date | null;
  attempts: number;
  status: ArchiveStatus;
  status_changed_at: Date;
  archived_at: Date;
}

interface Listing {
  rows: ArchiveRow[];
  /** rows matching the filter (rows holds at most `limit` of them, newest first) */
  total: number;
  failures: number;
}

export async function listArchive(
  db: Db,
  name: ArchiveNames,
  status: ArchiveStatus | undefined,
  limit: number,
): Promise<Listing> {
  const where = status ? db`WHERE status = ${status}` : db``;
  const [rows, totals, failureCounts] = await Promise.all([
    db<ArchiveRow[]>`SELECT * FROM ${db(name.archive)} ${where} ORDER BY archived_at DESC, id DESC LIMIT ${limit}`,
    db<{ total: number }[]>`SELECT count(*)::int AS total FROM ${db(name.archive)} ${where}`,
    db<{ failures: number }[]>`SELECT count(*)::int AS failures FROM ${db(name.failure)}`,
  ]);
  const total = must(totals[0], 'the archive count row').total;
  const failures = must(failureCounts[0], 'the failure count row').failures;
  return { rows, total: Number(total), failures: Number(failures) };
}
