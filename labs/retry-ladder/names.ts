/**
 * The ladder's names, topology, schema and reset. The delay queues depend on the options: one quorum queue per
 * distinct tier, named by its TTL (me12.ladder.delay.200ms), so a queue's name always says its
 * one fixed TTL and a run with other options declares other queues instead of redefining these.
 *
 *  producer ─► me12.ladder.business ─(work)─► me12.ladder.work ─► consumer
 *                   ▲                              │ reject(requeue=false) on the last attempt
 *                   │ dead-letter, key work        ▼ (x-dead-letter-exchange)
 *  me12.ladder.delay.200ms ◄─(200ms)─┐       me12.ladder.dead ─(exhausted)─► me12.ladder.dlq
 *  me12.ladder.delay.400ms ◄─(400ms)─┤                         ─(parked)───► me12.ladder.parking
 *  me12.ladder.delay.800ms ◄─(800ms)─┴─ me12.ladder.retry ◄── consumer: confirmed copy, attempt+1
 */
import type { Names } from '../../src/names.js';
import type { Topology } from '../../src/broker/topology.js';
import { tiers, type Backoff } from './backoff.js';

export const WORK_KEY = 'work';
export const EXHAUSTED_KEY = 'exhausted';
export const PARKED_KEY = 'parked';

/** the retry exchange's routing key for a tier; also the suffix of its delay queue */
export const tierKey = (ttlMs: number) => `${ttlMs}ms`;

export function names(n: Names) {
  return {
    business: n.x('me12.ladder.business'),
    retry: n.x('me12.ladder.retry'),
    dead: n.x('me12.ladder.dead'),
    work: n.q('me12.ladder.work'),
    dlq: n.q('me12.ladder.dlq'),
    parking: n.q('me12.ladder.parking'),
    delay: (ttlMs: number) => n.q(`me12.ladder.delay.${tierKey(ttlMs)}`),
    effect: n.t('retry_ladder_effect'),
  };
}

export function topology(n: Names, b: Backoff): Topology {
  const x = names(n);
  return {
    exchanges: [
      { name: x.business, type: 'direct' },
      { name: x.retry, type: 'direct' },
      { name: x.dead, type: 'direct' },
    ],
    queues: [
      { name: x.work, args: { 'x-dead-letter-exchange': x.dead, 'x-dead-letter-routing-key': EXHAUSTED_KEY } },
      ...tiers(b).map((ttl) => ({
        name: x.delay(ttl),
        args: { 'x-message-ttl': ttl, 'x-dead-letter-exchange': x.business, 'x-dead-letter-routing-key': WORK_KEY },
      })),
      { name: x.dlq },
      { name: x.parking },
    ],
    bindings: [
      { queue: x.work, exchange: x.business, key: WORK_KEY },
      ...tiers(b).map((ttl) => ({ queue: x.delay(ttl), exchange: x.retry, key: tierKey(ttl) })),
      { queue: x.dlq, exchange: x.dead, key: EXHAUSTED_KEY },
      { queue: x.parking, exchange: x.dead, key: PARKED_KEY },
    ],
  };
}

export const schema = (n: Names) =>
  `CREATE TABLE IF NOT EXISTS ${names(n).effect}(event_id text PRIMARY KEY, attempt int NOT NULL, committed_at timestamptz NOT NULL DEFAULT now())`;
export const reset = (n: Names) => `DELETE FROM ${names(n).effect}`;
