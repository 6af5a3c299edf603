/**
 * The retry-dlq lab's names: the three queues, the two tables, and how dead letters travel.
 *
 * Routing uses the default exchange: each queue names where its dead letters go in its own
 * arguments (x-dead-letter-exchange '' + x-dead-letter-routing-key = the target queue's name),
 * so there is no exchange or binding to forget, and --namespace reaches the routing keys too.
 *
 *   producer ──confirm──▶ orders.work ──reject(requeue=false)──▶ orders.retry (TTL 1000 ms)
 *                              ▲                                        │ expired
 *                              └────────────────────────────────────────┘
 *   consumer, attempt 3 ──confirm──▶ orders.dlq ; then ack on orders.work
 */
import type { Names, Topology } from '../../src/kit/index.js';

/** one fixed delay per retry hop (quorum TTL is head-only: one TTL per delay queue) */
export const TTL_MS = 1000;
/** the consumer gives up on this attempt: it moves the message to the DLQ instead of rejecting it */
export const MAX_ATTEMPTS = 3;

export function names(n: Names) {
  return {
    work: n.q('orders.work'),
    retry: n.q('orders.retry'),
    dlq: n.q('orders.dlq'),
    orders: n.t('retry_dlq_orders'),
    processed: n.t('retry_dlq_processed_messages'),
  };
}
export type RetryDlqNames = ReturnType<typeof names>;

export function topology(n: Names): Topology {
  const name = names(n);
  return {
    queues: [
      { name: name.work, args: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': name.retry } },
      {
        name: name.retry,
        args: { 'x-message-ttl': TTL_MS, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': name.work },
      },
      { name: name.dlq },
    ],
  };
}

/** the business table refuses a non-positive quantity: that is what makes order-poison fail, every time */
export function schema(n: Names): string {
  const name = names(n);
  return `CREATE TABLE IF NOT EXISTS ${name.processed}(message_id text PRIMARY KEY, processed_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS ${name.orders}(order_id text PRIMARY KEY, message_id text NOT NULL UNIQUE, quantity int NOT NULL CHECK (quantity > 0));`;
}

/** both tables belong to this lab (and to its namespace): every run starts with none of its rows */
export function reset(n: Names): string {
  const name = names(n);
  return `DELETE FROM ${name.orders}; DELETE FROM ${name.processed};`;
}
