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
import type { Names } from '../../src/names.js';
import type { Topology } from '../../src/broker/topology.js';
import { DELIVERY_LIMIT, MAX_LENGTH, QUEUE_TTL_MS, RETRY_TTL_MS, SINGLE_PATHS, type PathName } from './reasons.js';

/** the key the twice path's retry queue sends the message back with; its second death routes by it */
export const TWICE_AGAIN = 'twice.again';

export interface DlrNames {
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
  const x = names(n);
  const single = SINGLE_PATHS.map((p) => ({
    name: x.work[p],
    args: { ...WORK_ARGS[p], 'x-dead-letter-exchange': x.dead, 'x-dead-letter-routing-key': p },
  }));
  return {
    exchanges: [
      { name: x.business, type: 'direct' },
      { name: x.dead, type: 'topic' },
    ],
    queues: [
      ...single,
      { name: x.work.twice, args: { 'x-dead-letter-exchange': x.dead } },
      {
        name: x.retry,
        args: {
          'x-message-ttl': RETRY_TTL_MS,
          'x-dead-letter-exchange': x.business,
          'x-dead-letter-routing-key': TWICE_AGAIN,
        },
      },
      ...Object.values(x.dlq).map((name) => ({ name })),
      { name: x.watch },
    ],
    bindings: [
      ...[...SINGLE_PATHS, 'twice' as const].map((p) => ({ queue: x.work[p], exchange: x.business, key: p })),
      { queue: x.work.twice, exchange: x.business, key: TWICE_AGAIN },
      ...SINGLE_PATHS.map((p) => ({ queue: x.dlq[p], exchange: x.dead, key: p })),
      { queue: x.retry, exchange: x.dead, key: 'twice' },
      { queue: x.dlq.twice, exchange: x.dead, key: TWICE_AGAIN },
      { queue: x.watch, exchange: x.dead, key: '#' },
    ],
  };
}
