/** The db-outage lab's names (one quorum queue, two tables), topology, schema, reset and constants. */
import type { Names, Topology, Backoff } from '../../src/kit/index.js';

export const MESSAGES = 5;
/** the message whose transaction is open when PostgreSQL stops (1-based) */
export const HELD = 3;
/** the consumer's retry backoff while it holds a delivery (and its pool's reconnect): doubles from initialMs up to maxMs */
export const BACKOFF: Backoff = { initialMs: 100, maxMs: 400 };

export const messageId = (i: number) => `dbo-${String(i).padStart(3, '0')}`;

export const names = (n: Names) => ({
  queue: n.q('dbo.work'),
  /** the idempotency key: one row per message id, written in the same transaction as the effect */
  processed: n.t('dbo_processed'),
  /** the business effect; no unique key on purpose (the processed key is what dedupes) */
  effects: n.t('dbo_effect'),
});
export type DbOutageNames = ReturnType<typeof names>;

export const topology = (n: Names): Topology => ({ queues: [{ name: names(n).queue }] });

export const schema = (n: Names) => {
  const name = names(n);
  return `
CREATE TABLE IF NOT EXISTS ${name.processed}(message_id text PRIMARY KEY, processed_at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE TABLE IF NOT EXISTS ${name.effects}(id bigserial PRIMARY KEY, message_id text NOT NULL, delivery int NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp());`;
};

export const reset = (n: Names) => {
  const name = names(n);
  return `TRUNCATE ${name.processed}; TRUNCATE ${name.effects};`;
};
