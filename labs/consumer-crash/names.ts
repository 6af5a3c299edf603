/** The consumer-crash lab's names (one queue, two tables), topology, schema and reset. */
import type { Names, Topology } from '../../src/kit/index.js';

/** the lab column of both tables: rows of other labs sharing the tables stay untouched */
export const LAB = 'consumer-crash';

export const names = (n: Names) => ({
  queue: n.q('orders.crash'),
  processed: n.t('processed_messages'),
  orders: n.t('orders'),
});
export type CrashNames = ReturnType<typeof names>;

export const topology = (n: Names): Topology => ({ queues: [{ name: names(n).queue }] });

/**
 * orders has no unique key on order_id on purpose: the only thing that keeps a redelivered
 * message from writing a second business row is the processed_messages key.
 */
export const schema = (n: Names) => {
  const name = names(n);
  return `
CREATE TABLE IF NOT EXISTS ${name.processed}(
  lab text NOT NULL, message_id text NOT NULL, consumer text NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (lab, message_id));
CREATE TABLE IF NOT EXISTS ${name.orders}(
  id bigserial PRIMARY KEY, lab text NOT NULL, order_id text NOT NULL, message_id text NOT NULL,
  trace_id text NOT NULL, amount numeric NOT NULL, created_at timestamptz NOT NULL DEFAULT now());`;
};

export const reset = (n: Names) => {
  const name = names(n);
  return `DELETE FROM ${name.processed} WHERE lab = '${LAB}'; DELETE FROM ${name.orders} WHERE lab = '${LAB}';`;
};
