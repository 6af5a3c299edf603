/**
 * The ordering lab's tables and its two writers: the versioned one (a conditional upsert; an older
 * version goes to the stale table with both versions) and the naive "last write wins" shadow.
 */
import type { TransactionSql } from 'postgres';
import type { Names } from '../../src/names.js';
import { LabError } from '../../src/errors.js';
import { outcomeOf, type Outcome } from './versions.js';

export interface OrderEvent {
  eventId: string;
  aggregateId: string;
  version: number;
  status: string;
}

export const tables = (n: Names) => ({
  state: n.t('ordering_state'),
  applied: n.t('ordering_applied'),
  stale: n.t('ordering_stale'),
  naive: n.t('ordering_naive_state'),
});

export type Tables = ReturnType<typeof tables>;

export function schema(n: Names): string {
  const t = tables(n);
  return `
    CREATE TABLE IF NOT EXISTS ${t.state}(
      aggregate_id text PRIMARY KEY, version int NOT NULL, event_id text NOT NULL, status text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT clock_timestamp());
    CREATE TABLE IF NOT EXISTS ${t.applied}(
      event_id text PRIMARY KEY, aggregate_id text NOT NULL, version int NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT clock_timestamp());
    CREATE TABLE IF NOT EXISTS ${t.stale}(
      event_id text PRIMARY KEY, aggregate_id text NOT NULL, incoming_version int NOT NULL, stored_version int NOT NULL,
      recorded_at timestamptz NOT NULL DEFAULT clock_timestamp());
    CREATE TABLE IF NOT EXISTS ${t.naive}(
      aggregate_id text PRIMARY KEY, version int NOT NULL, event_id text NOT NULL, status text NOT NULL);`;
}

export function reset(n: Names, aggregateId: string): string {
  return Object.values(tables(n))
    .map((table) => `DELETE FROM ${table} WHERE aggregate_id = '${aggregateId}';`)
    .join('\n');
}

/**
 * Apply `e` unless the stored version is newer. The upsert's WHERE decides; a conflicting row it did
 * not update is still locked by it, so the version read afterwards is the one that beat `e`.
 */
export async function applyVersioned(sql: TransactionSql, t: Tables, e: OrderEvent): Promise<{ outcome: Outcome; storedVersion: number }> {
  const updated = await sql`
    INSERT INTO ${sql(t.state)} AS s (aggregate_id, version, event_id, status)
    VALUES (${e.aggregateId}, ${e.version}, ${e.eventId}, ${e.status})
    ON CONFLICT (aggregate_id) DO UPDATE
      SET version = EXCLUDED.version, event_id = EXCLUDED.event_id, status = EXCLUDED.status, updated_at = clock_timestamp()
      WHERE s.version < EXCLUDED.version
    RETURNING version`;
  if (updated.length === 1) {
    await sql`INSERT INTO ${sql(t.applied)} (event_id, aggregate_id, version) VALUES (${e.eventId}, ${e.aggregateId}, ${e.version})`;
    return { outcome: 'applied', storedVersion: e.version };
  }
  const [row] = await sql`SELECT version FROM ${sql(t.state)} WHERE aggregate_id = ${e.aggregateId}`;
  const storedVersion = Number(row.version);
  const outcome = outcomeOf(e.version, storedVersion);
  if (outcome === 'applied') throw new LabError(`the upsert skipped ${e.eventId} v${e.version} although v${storedVersion} is older`);
  if (outcome === 'stale') {
    await sql`INSERT INTO ${sql(t.stale)} (event_id, aggregate_id, incoming_version, stored_version)
              VALUES (${e.eventId}, ${e.aggregateId}, ${e.version}, ${storedVersion}) ON CONFLICT (event_id) DO NOTHING`;
  }
  return { outcome, storedVersion };
}

/** the contrast: the same delivery written without a version condition */
export async function applyLastWriteWins(sql: TransactionSql, t: Tables, e: OrderEvent): Promise<void> {
  await sql`
    INSERT INTO ${sql(t.naive)} (aggregate_id, version, event_id, status) VALUES (${e.aggregateId}, ${e.version}, ${e.eventId}, ${e.status})
    ON CONFLICT (aggregate_id) DO UPDATE SET version = EXCLUDED.version, event_id = EXCLUDED.event_id, status = EXCLUDED.status`;
}
