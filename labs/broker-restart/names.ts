/** The broker-restart lab's names (one quorum queue, two tables), topology, schema, reset and constants. */
import type { Names, Topology } from '../../src/kit/index.js';

/** confirmed before the consumer starts: what the queue holds when the node stops */
export const FIRST_BATCH = 30;
/** the consumer's prefetch: it commits these and holds their acks when the node stops */
export const PREFETCH = 5;
/** the producer's pause between publishes while the node restarts (each waits for its confirm first) */
export const PUBLISH_GAP_MS = 20;
/** the producer goes on this many ids after it is connected again */
export const AFTER_RECONNECT = 20;
/** never more than this many ids in all (bounds the producer's loop) */
export const MAX_IDS = 2000;

export const messageId = (i: number) => `brk-${String(i).padStart(4, '0')}`;

export const names = (n: Names) => ({
  queue: n.q('brk.work'),
  /** a classic queue, used only by the broken variant transient-classic (non-persistent messages) */
  classic: n.q('brk.classic'),
  /** the idempotency key, written in the effect's transaction */
  processed: n.t('brk_processed'),
  /** the business effect; no unique key on purpose (the processed key is what dedupes) */
  effects: n.t('brk_effect'),
});
export type BrokerRestartNames = ReturnType<typeof names>;

export const topology = (n: Names): Topology => ({
  queues: [{ name: names(n).queue }, { name: names(n).classic, type: 'classic' }],
});

export const schema = (n: Names) => {
  const name = names(n);
  return `
CREATE TABLE IF NOT EXISTS ${name.processed}(message_id text PRIMARY KEY, processed_at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE TABLE IF NOT EXISTS ${name.effects}(id bigserial PRIMARY KEY, message_id text NOT NULL, created_at timestamptz NOT NULL DEFAULT clock_timestamp());`;
};

export const reset = (n: Names) => {
  const name = names(n);
  return `TRUNCATE ${name.processed}; TRUNCATE ${name.effects};`;
};
