/**
 * The retry lab's names, topology and schema.
 *
 * me12.retry.work ── healthy → business row → ack
 *                 ├─ transient, attempt 1 and 2 → confirmed copy to me12.retry.delay (attempt+1) → ack
 *                 │    └─ TTL 500 ms → default exchange → back to work → attempt 3 → business row → ack
 *                 └─ poison → reject(requeue=false) → me12.retry.dead/failed → me12.retry.dlq
 */
import type { Names, Topology } from '../../src/kit/index.js';

export const TTL_MS = 500;
export const EVENTS = ['healthy', 'transient', 'poison'] as const;

export const names = (n: Names) => ({
  work: n.q('me12.retry.work'),
  delay: n.q('me12.retry.delay'),
  dlq: n.q('me12.retry.dlq'),
  dead: n.x('me12.retry.dead'),
  effect: n.t('retry_effect'),
});

export function topology(n: Names): Topology {
  const name = names(n);
  return {
    exchanges: [{ name: name.dead, type: 'direct' }],
    queues: [
      { name: name.dlq },
      { name: name.work, args: { 'x-dead-letter-exchange': name.dead, 'x-dead-letter-routing-key': 'failed' } },
      {
        name: name.delay,
        args: { 'x-message-ttl': TTL_MS, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': name.work },
      },
    ],
    bindings: [{ queue: name.dlq, exchange: name.dead, key: 'failed' }],
  };
}

export const schema = (n: Names) => `CREATE TABLE IF NOT EXISTS ${names(n).effect}(event_id text PRIMARY KEY)`;
export const reset = (n: Names) =>
  `DELETE FROM ${names(n).effect} WHERE event_id IN (${EVENTS.map((e) => `'${e}'`).join(',')})`;
