/**
 * The ordering lab's two writers: the versioned one (a conditional upsert; an older
 * version goes to the stale table with both versions) and the naive "last write wins" shadow.
 */
import type { TransactionSql } from 'postgres';
import type { Tables } from './names.js';
import { LabError } from '../../src/kit/index.js';
import { outcomeOf, type Outcome } from './versions.js';

export interface OrderEvent {
  eventId: string;
  aggregateId: string;
  version: number;
  status: string;
}

/** how the versioned writer writes: as taught, both true (a broken variant turns one off, variants.ts) */
export interface WriteRules {
  /** the upsert updates only an older stored version */
  versionCheck: boolean;
  /** an event older than the stored version is recorded in the stale table */
  recordStale: boolean;
}

/**
 * Apply `e` unless the stored version is newer. The upsert's WHERE decides; a conflicting row it did
 * not update is still locked by it, so the version read afterwards is the one that beat `e`.
 */
export async function applyVersioned(
  sql: TransactionSql,
  table: Tables,
  e: OrderEvent,
  rules: WriteRules = { versionCheck: true, recordStale: true },
): Promise<{ outcome: Outcome; storedVersion: number }> {
  const newer = rules.versionCheck ? sql`s.version < EXCLUDED.version` : sql`true`;
  const updated = await sql`
    INSERT INTO ${sql(table.state)} AS s (aggregate_id, version, event_id, status)
    VALUES (${e.aggregateId}, ${e.version}, ${e.eventId}, ${e.status})
    ON CONFLICT (aggregate_id) DO UPDATE
      SET version = EXCLUDED.version, event_id = EXCLUDED.event_id, status = EXCLUDED.status, updated_at = clock_timestamp()
      WHERE ${newer}
    RETURNING version`;
  if (updated.length === 1) {
    await sql`INSERT INTO ${sql(table.applied)} (event_id, aggregate_id, version) VALUES (${e.eventId}, ${e.aggregateId}, ${e.version})`;
    return { outcome: 'applied', storedVersion: e.version };
  }
  const [row] = await sql`SELECT version FROM ${sql(table.state)} WHERE aggregate_id = ${e.aggregateId}`;
  if (!row)
    throw new LabError(
      `the upsert skipped ${e.eventId} v${e.version}, yet ${table.state} has no row for ${e.aggregateId}`,
    );
  const storedVersion = Number(row.version);
  const outcome = outcomeOf(e.version, storedVersion);
  if (outcome === 'applied')
    throw new LabError(`the upsert skipped ${e.eventId} v${e.version} although v${storedVersion} is older`);
  if (outcome === 'stale' && rules.recordStale) {
    await sql`INSERT INTO ${sql(table.stale)} (event_id, aggregate_id, incoming_version, stored_version)
              VALUES (${e.eventId}, ${e.aggregateId}, ${e.version}, ${storedVersion}) ON CONFLICT (event_id) DO NOTHING`;
  }
  return { outcome, storedVersion };
}

/** the contrast: the same delivery written without a version condition */
export async function applyLastWriteWins(sql: TransactionSql, table: Tables, e: OrderEvent): Promise<void> {
  await sql`
    INSERT INTO ${sql(table.naive)} (aggregate_id, version, event_id, status) VALUES (${e.aggregateId}, ${e.version}, ${e.eventId}, ${e.status})
    ON CONFLICT (aggregate_id) DO UPDATE SET version = EXCLUDED.version, event_id = EXCLUDED.event_id, status = EXCLUDED.status`;
}
