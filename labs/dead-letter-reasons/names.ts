/**
 * dead-letter-reasons topology (all quorum queues; 3.10.8 dead-letters every path from quorum).
 *
 * producer ─► dlr.business (direct), one routing key per path
 *   queue-ttl       ─► dlr.queue-ttl       x-message-ttl 100      ─┐
 *   message-ttl     ─► dlr.message-ttl     (expiration "150")      │
 *   max-length      ─► dlr.max-length      x-max-length 1 drop-head│ x-dead-letter-exchange dlr.dead,
 *   reject          ─► dlr.reject          reject(requeue=false)   │ x-dead-letter-routing-key = path
 *   delivery-limit  ─► dlr.delivery-limit  x-delivery-limit 2      ─┘
 *   twice           ─► dlr.twice (no DLRK: dies with the message's current routing key)
 *       'twice'       ─► dlr.twice.retry  x-message-ttl 100 ─► dlr.business 'twice.again' ─► dlr.twice
 *       'twice.again' ─► dlr.twice.dlq
 * dlr.dead (topic) ─► dlr.<path>.dlq by key, and ─► dlr.dead.watch by '#': the lab's push consumer
 * watches that copy, so the DLQs keep their letters untouched for inspection.
 */
import type { Names, Topology } from '../../src/kit/index.js';
import { DELIVERY_LIMIT, MAX_LENGTH, QUEUE_TTL_MS, RETRY_TTL_MS, SINGLE_PATHS, type PathName } from './reasons.js';

/** the key the twice path's retry queue sends the message back with; its second death routes by it */
export const TWICE_AGAIN = 'twice.again';

interface DlrNames {
  business: string;
  dead: string;
  watch: string;
  retry: string;
  work: Record<PathName, string>;
  dlq: Record<PathName, string>;
}

export function names(n: Names): DlrNames {
  const paths = [...SINGLE_PATHS, 'twice'] as PathName[];
  const byPath = (suffix: string) =>
    Object.fromEntries(paths.map((p) => [p, n.q(`dlr.${p}${suffix}`)])) as Record<PathName, string>;
  return {
    business: n.x('dlr.business'),
    dead: n.x('dlr.dead'),
    watch: n.q('dlr.dead.watch'),
    retry: n.q('dlr.twice.retry'),
    work: byPath(''),
    dlq: byPath('.dlq'),
  };
}

const WORK_ARGS: Record<PathName, Record<string, unknown>> = {
  'queue-ttl': { 'x-message-ttl': QUEUE_TTL_MS },
  'message-ttl': {},
  'max-length': { 'x-max-length': MAX_LENGTH, 'x-overflow': 'drop-head' },
  reject: {},
  'delivery-limit': { 'x-delivery-limit': DELIVERY_LIMIT },
  twice: {},
};

export function topology(n: Names): Topology {
  const name = names(n);
  const single = SINGLE_PATHS.map((p) => ({
    name: name.work[p],
    args: { ...WORK_ARGS[p], 'x-dead-letter-exchange': name.dead, 'x-dead-letter-routing-key': p },
  }));
  return {
    exchanges: [
      { name: name.business, type: 'direct' },
      { name: name.dead, type: 'topic' },
    ],
    queues: [
      ...single,
      { name: name.work.twice, args: { 'x-dead-letter-exchange': name.dead } },
      {
        name: name.retry,
        args: {
          'x-message-ttl': RETRY_TTL_MS,
          'x-dead-letter-exchange': name.business,
          'x-dead-letter-routing-key': TWICE_AGAIN,
        },
      },
      ...Object.values(name.dlq).map((name) => ({ name })),
      { name: name.watch },
    ],
    bindings: [
      ...[...SINGLE_PATHS, 'twice' as const].map((p) => ({ queue: name.work[p], exchange: name.business, key: p })),
      { queue: name.work.twice, exchange: name.business, key: TWICE_AGAIN },
      ...SINGLE_PATHS.map((p) => ({ queue: name.dlq[p], exchange: name.dead, key: p })),
      { queue: name.retry, exchange: name.dead, key: 'twice' },
      { queue: name.dlq.twice, exchange: name.dead, key: TWICE_AGAIN },
      { queue: name.watch, exchange: name.dead, key: '#' },
    ],
  };
}
