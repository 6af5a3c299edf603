/** Every name the publish-confirm lab touches, its topology as data, its schema and reset SQL. */
import type { Names, Topology } from '../../src/kit/index.js';

/** (a, b): the only binding of the exchange; the unroutable publishes use another key */
export const ROUTED_KEY = 'orders';
export const UNROUTED_KEY = 'nowhere';
/** (c): the bounded queue's length */
export const MAX_LENGTH = 1;
/** (d): the event published twice (result unknown, then again) */
export const EVENT_ID = 'evt-publish-retry';

export function names(n: Names) {
  return {
    exchange: n.x('me12.confirm.x'),
    orders: n.q('me12.confirm.orders'),
    bounded: n.q('me12.confirm.bounded'),
    events: n.q('me12.confirm.events'),
    processed: n.t('confirm_processed'),
    effects: n.t('confirm_effect'),
  };
}

export type ConfirmNames = ReturnType<typeof names>;

export function topology(n: Names): Topology {
  const name = names(n);
  return {
    exchanges: [{ name: name.exchange, type: 'direct' }],
    queues: [
      { name: name.orders },
      // classic: it refuses the publish that would exceed the length. A quorum queue checks the limit after
      // the enqueue that crosses it (measured on 3.10.8 and 4.3.6: two confirmed messages in an x-max-length 1 queue, the third nacked).
      { name: name.bounded, type: 'classic', args: { 'x-max-length': MAX_LENGTH, 'x-overflow': 'reject-publish' } },
      { name: name.events },
    ],
    bindings: [{ queue: name.orders, exchange: name.exchange, key: ROUTED_KEY }],
  };
}

/** the dedupe table claims an event id once; the effect table has no key on purpose */
export const schema = (n: Names) => {
  const name = names(n);
  return `
CREATE TABLE IF NOT EXISTS ${name.processed}(event_id text PRIMARY KEY, processed_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS ${name.effects}(
  id bigserial PRIMARY KEY, event_id text NOT NULL, publish_attempt int NOT NULL, delivery_attempt int NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now());`;
};

export const reset = (n: Names) => {
  const name = names(n);
  return `DELETE FROM ${name.processed}; DELETE FROM ${name.effects};`;
};
