/**
 * Every queue and exchange delayed-retry uses (--namespace prefixes them) and its two topologies:
 * the native one (one quorum queue per demonstration, delayed retry in its arguments) and the
 * TTL ladder that does the same schedule by hand (a work queue, an exchange, one delay queue per tier).
 */
import type { Names, QueueSpec, Topology } from '../../src/kit/index.js';
import { ladderTiers, type RetrySpec } from './delays.js';

export function names(n: Names) {
  return {
    reject: n.q('me12.native.reject'),
    nack: n.q('me12.native.nack'),
    held: n.q('me12.native.held'),
    ladderWork: n.q('me12.native.ladder.work'),
    ladderRetry: n.q('me12.native.ladder.retry'),
    tier: (i: number) => n.q(`me12.native.ladder.delay-${i + 1}`),
    // the rules (rules.ts): one queue per type, min required, max default, policy precedence, limit -1
    type: (t: string) => n.q(`me12.native.type.${t}`),
    noMin: n.q('me12.native.no-min'),
    maxDefault: n.q('me12.native.max-default'),
    policyType: n.q('me12.native.policy-type'),
    policyMin: n.q('me12.native.policy-min'),
    unlimited: n.q('me12.native.unlimited'),
    /** a name no queue has: the pattern of the policies the broker must refuse */
    never: n.q('me12.native.no-such-queue'),
  };
}

export type RetryNames = ReturnType<typeof names>;

const native = (
  name: string,
  s: Pick<RetrySpec, 'minMs' | 'maxMs'>,
  extra: Record<string, unknown> = {},
): QueueSpec => ({
  name,
  args: {
    'x-delayed-retry-type': 'all',
    'x-delayed-retry-min': s.minMs,
    'x-delayed-retry-max': s.maxMs,
    'x-delivery-limit': 20,
    ...extra,
  },
});

/** the native side: a reject queue, a nack queue, and a max-length-1 queue whose one message is held */
export function nativeTopology(name: RetryNames, s: RetrySpec, holdMs: number): Topology {
  return {
    queues: [
      native(name.reject, s),
      native(name.nack, s),
      native(name.held, { minMs: holdMs, maxMs: holdMs }, { 'x-max-length': 1, 'x-overflow': 'reject-publish' }),
    ],
  };
}

/** the same schedule with TTL delay queues: tier i has the i-th distinct delay and dead-letters back to work */
export function ladderTopology(name: RetryNames, s: RetrySpec): Topology {
  const tiers = ladderTiers(s);
  return {
    exchanges: [{ name: name.ladderRetry, type: 'direct' }],
    queues: [
      { name: name.ladderWork },
      ...tiers.map((ttl, i) => ({
        name: name.tier(i),
        args: { 'x-message-ttl': ttl, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': name.ladderWork },
      })),
    ],
    bindings: tiers.map((_, i) => ({ queue: name.tier(i), exchange: name.ladderRetry, key: `tier-${i + 1}` })),
  };
}
