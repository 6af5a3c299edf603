/**
 * The ordering lab's names (two queues, four tables), topology, schema and reset.
 *
 * producer ── order-42 v1, v2 ──► ordering.work ── consumer
 *                                   ▲     v1 attempt 1: downstream fails → confirmed copy (attempt 2) → ordering.delay, ack
 *                                   │     v2: conditional upsert applies v2 → ack
 *                                   └── TTL 300 ms ── ordering.delay
 *                                         v1 attempt 2: stored v2 is newer → ordering_stale (1 < 2) → ack
 */
import type { Names, Topology } from '../../src/kit/index.js';

export const TTL_MS = 300;
/** the one aggregate the lab writes: reset deletes its rows only */
export const AGGREGATE = 'order-42';

export const names = (n: Names) => ({
  work: n.q('ordering.work'),
  delay: n.q('ordering.delay'),
  ...tables(n),
});

/** the four tables, on their own: reset empties each of them of the lab's aggregate */
const tables = (n: Names) => ({
  state: n.t('ordering_state'),
  applied: n.t('ordering_applied'),
  stale: n.t('ordering_stale'),
  naive: n.t('ordering_naive_state'),
});

export type Tables = ReturnType<typeof tables>;

export function schema(n: Names): string {
  const table = tables(n);
  return `
    CREATE TABLE IF NOT EXISTS ${table.state}(
      aggregate_id text PRIMARY KEY, version int NOT NULL, event_id text NOT NULL, status text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT clock_timestamp());
    CREATE TABLE IF NOT EXISTS ${table.applied}(
      event_id text PRIMARY KEY, aggregate_id text NOT NULL, version int NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT clock_timestamp());
    CREATE TABLE IF NOT EXISTS ${table.stale}(
      event_id text PRIMARY KEY, aggregate_id text NOT NULL, incoming_version int NOT NULL, stored_version int NOT NULL,
      recorded_at timestamptz NOT NULL DEFAULT clock_timestamp());
    CREATE TABLE IF NOT EXISTS ${table.naive}(
      aggregate_id text PRIMARY KEY, version int NOT NULL, event_id text NOT NULL, status text NOT NULL);`;
}

export function reset(n: Names): string {
  return Object.values(tables(n))
    .map((table) => `DELETE FROM ${table} WHERE aggregate_id = '${AGGREGATE}';`)
    .join('\n');
}

export function topology(n: Names): Topology {
  const name = names(n);
  return {
    queues: [
      { name: name.work },
      {
        name: name.delay,
        args: { 'x-message-ttl': TTL_MS, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': name.work },
      },
    ],
  };
}
