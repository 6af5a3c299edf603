/**
 * retry-loop-limit's queues and exchanges (--namespace prefixes them): a work queue with a small
 * delivery limit whose dead letters fan out to a TTL wait queue (the retry loop) and to a trail
 * queue that keeps a copy of every dead letter; the wait queue's expired letters fan out back to
 * work and to a second trail (every copy that went through the wait queue).
 *
 *   work ──reject(false) / delivery_limit──▶ dlx (fanout) ──▶ wait (TTL) ──expired──▶ back (fanout) ──▶ work
 *                                                        └──▶ trail                            └──▶ expired-trail
 */
import type { Names, Topology } from '../../src/kit/index.js';

/** x-delivery-limit of the work queue */
export const LIMIT = 2;
/** how many times the looped message goes round the TTL loop before its one requeue: more than LIMIT */
export const LOOPS = 4;
/** x-message-ttl of the wait queue, ms */
export const WAIT_TTL_MS = 50;
/** requeues tried after the loops before the lab stops (a broker whose limit never triggers) */
export const MAX_REQUEUES = LIMIT + 3;

export const names = (n: Names) => ({
  work: n.q('retry-loop.work'),
  wait: n.q('retry-loop.wait'),
  trail: n.q('retry-loop.trail'),
  expiredTrail: n.q('retry-loop.expired-trail'),
  dlx: n.q('retry-loop.dlx'),
  back: n.q('retry-loop.back'),
});
export type LoopNames = ReturnType<typeof names>;

export function topology(n: Names): Topology {
  const name = names(n);
  return {
    exchanges: [
      { name: name.dlx, type: 'fanout' },
      { name: name.back, type: 'fanout' },
    ],
    queues: [
      { name: name.work, args: { 'x-delivery-limit': LIMIT, 'x-dead-letter-exchange': name.dlx } },
      {
        name: name.wait,
        args: { 'x-message-ttl': WAIT_TTL_MS, 'x-dead-letter-exchange': name.back },
      },
      { name: name.trail },
      { name: name.expiredTrail },
    ],
    bindings: [
      { queue: name.wait, exchange: name.dlx, key: '' },
      { queue: name.trail, exchange: name.dlx, key: '' },
      { queue: name.work, exchange: name.back, key: '' },
      { queue: name.expiredTrail, exchange: name.back, key: '' },
    ],
  };
}
