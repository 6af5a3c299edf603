/** Every name the outbox lab touches, its topology, schema and reset SQL. */
import type { Names, Topology } from '../../src/kit/index.js';

export function names(n: Names) {
  return {
    queue: n.q('me12.outbox.orders'),
    orders: n.t('outbox_orders'),
    outbox: n.t('outbox_events'),
    processed: n.t('outbox_processed'),
    effects: n.t('outbox_effect'),
  };
}

export type OutboxNames = ReturnType<typeof names>;

export const topology = (n: Names): Topology => ({ queues: [{ name: names(n).queue }] });

/**
 * orders and outbox_events are written in one transaction; sent_at is set by the relay after the confirm.
 * The consumer's effect table has no key on purpose: only the processed claim keeps a duplicate out.
 */
export const schema = (n: Names) => {
  const name = names(n);
  return `
CREATE TABLE IF NOT EXISTS ${name.orders}(order_id text PRIMARY KEY, amount numeric NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS ${name.outbox}(
  id bigserial PRIMARY KEY, event_id text NOT NULL UNIQUE, order_id text NOT NULL, payload text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(), sent_at timestamptz);
CREATE TABLE IF NOT EXISTS ${name.processed}(event_id text PRIMARY KEY, processed_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS ${name.effects}(id bigserial PRIMARY KEY, event_id text NOT NULL, order_id text NOT NULL);`;
};

export const reset = (n: Names) => {
  const name = names(n);
  return `DELETE FROM ${name.orders}; DELETE FROM ${name.outbox}; DELETE FROM ${name.processed}; DELETE FROM ${name.effects};`;
};

/** the orders of a run: two commit, the third's transaction fails and rolls back */
export const ORDERS = [
  { orderId: 'order-1', amount: 10, commits: true },
  { orderId: 'order-2', amount: 20, commits: true },
  { orderId: 'order-3', amount: 30, commits: false },
] as const;

export const eventIdOf = (orderId: string) => `evt-${orderId}`;
