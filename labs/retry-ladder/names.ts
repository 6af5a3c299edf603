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
import type { Names, Topology } from '../../src/kit/index.js';
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
  const name = names(n);
  return {
    exchanges: [
      { name: name.business, type: 'direct' },
      { name: name.retry, type: 'direct' },
      { name: name.dead, type: 'direct' },
    ],
    queues: [
      { name: name.work, args: { 'x-dead-letter-exchange': name.dead, 'x-dead-letter-routing-key': EXHAUSTED_KEY } },
      ...tiers(b).map((ttl) => ({
        name: name.delay(ttl),
        args: { 'x-message-ttl': ttl, 'x-dead-letter-exchange': name.business, 'x-dead-letter-routing-key': WORK_KEY },
      })),
      { name: name.dlq },
      { name: name.parking },
    ],
    bindings: [
      { queue: name.work, exchange: name.business, key: WORK_KEY },
      ...tiers(b).map((ttl) => ({ queue: name.delay(ttl), exchange: name.retry, key: tierKey(ttl) })),
      { queue: name.dlq, exchange: name.dead, key: EXHAUSTED_KEY },
      { queue: name.parking, exchange: name.dead, key: PARKED_KEY },
    ],
  };
}

export const schema = (n: Names) =>
  `CREATE TABLE IF NOT EXISTS ${names(n).effect}(event_id text PRIMARY KEY, attempt int NOT NULL, committed_at timestamptz NOT NULL DEFAULT now())`;
export const reset = (n: Names) => `DELETE FROM ${names(n).effect}`;
