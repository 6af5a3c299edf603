/**
 * TEST ONLY: the seams of the delayed-retry variants (declared in meta.ts) that add routes (MQLAB_FAULT=delayed-retry:<fault>),
 * and (breakRules, below) those of the rules.
 *   native-bound         the native reject queue also bound to an exchange (amq.direct), as a ladder's
 *                        queue would be: the native design is no longer one queue and nothing else
 *   work-bound-to-retry  the ladder's work queue bound to its retry exchange with the first tier's key:
 *                        the first retry comes back at once, beside the copy that waits in tier 1
 * Each route is removed when the run ends, so the next run sees the lab's own topology.
 */
import {
  type LabContext,
  withoutQueueArgs as withoutArgs,
  type PolicySpec,
  type QueueSpec,
  type Topology,
  type Variants,
  closeChannel,
} from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import type { RetryNames } from './names.js';
import { MAX_DEFAULT_MIN_MS, RULE_MIN_MS } from './rules.js';

/** the native design's queues and how its consumers return a message (lab.ts) */
export interface NativeSteps {
  native: Topology;
  /** how the reject queue's and the nack queue's consumers hand a message back */
  kind: { reject: 'reject' | 'nack'; nack: 'reject' | 'nack' };
  /** the consumer's work per delivery before it returns the message: none */
  slowMs: number;
}

/**
 * The variants of the native design:
 *   no-delayed-retry  the native queues declared without x-delayed-retry-*
 *   no-max-length     the held queue declared without x-max-length
 *   nack-for-reject   the reject queue's consumer nacks;  reject-for-nack  the nack queue's consumer rejects
 *   slow-consumer     each return comes `slowMs` late
 */
export const nativeVariants = (held: string, slowMs: number): Variants<NativeSteps, Fault> => ({
  'no-delayed-retry': (s) => ({
    native: withoutArgs(
      s.native,
      () => true,
      (k) => k.startsWith('x-delayed-retry'),
    ),
  }),
  'no-max-length': (s) => ({
    native: withoutArgs(
      s.native,
      (q) => q === held,
      (k) => k === 'x-max-length',
    ),
  }),
  'nack-for-reject': (s) => ({ kind: { ...s.kind, reject: 'nack' } }),
  'reject-for-nack': (s) => ({ kind: { ...s.kind, nack: 'reject' } }),
  'slow-consumer': { slowMs },
});

export async function withFaultRoutes<T>(
  ctx: LabContext<unknown, Fault>,
  name: RetryNames,
  run: () => Promise<T>,
): Promise<T> {
  const routes = [
    ...(ctx.fault('native-bound') ? [{ queue: name.reject, exchange: 'amq.direct', key: name.reject }] : []),
    ...(ctx.fault('work-bound-to-retry')
      ? [{ queue: name.ladderWork, exchange: name.ladderRetry, key: 'tier-1' }]
      : []),
  ];
  if (!routes.length) return run();
  const ch = await ctx.broker.newChannel();
  try {
    for (const r of routes) await ch.bindQueue(r.queue, r.exchange, r.key);
    return await run();
  } finally {
    for (const r of routes) await ch.unbindQueue(r.queue, r.exchange, r.key).catch(() => {});
    await closeChannel(ch);
  }
}

/**
 * The variants of the rules (rules.ts), applied to the queues and policies before they are declared:
 *   failed-as-all        the failed type's queue declared with type all: a nack is delayed too
 *   min-given            the no-min queue and the policy without min both get a min
 *   max-not-below-min    the policy whose max is below its min gets max = min: accepted
 *   max-given            the max-default queue declared with max = 3 × min: the waits grow
 *   no-policies          the two precedence policies are not applied
 *   unlimited-as-failed  the limit -1 queue declared with type failed: its nack is not delayed
 */
export function breakRules(
  ctx: LabContext<unknown, Fault>,
  name: RetryNames,
  queues: QueueSpec[],
  policies: PolicySpec[],
  refusals: { withoutMin: PolicySpec; maxBelowMin: PolicySpec },
) {
  const args = (name: string) => queues.find((q) => q.name === name)!.args!;
  if (ctx.fault('failed-as-all')) args(name.type('failed'))['x-delayed-retry-type'] = 'all';
  if (ctx.fault('min-given')) {
    args(name.noMin)['x-delayed-retry-min'] = RULE_MIN_MS;
    refusals.withoutMin.definition['delayed-retry-min'] = RULE_MIN_MS;
  }
  if (ctx.fault('max-not-below-min'))
    refusals.maxBelowMin.definition['delayed-retry-max'] = refusals.maxBelowMin.definition['delayed-retry-min'];
  if (ctx.fault('max-given')) args(name.maxDefault)['x-delayed-retry-max'] = 3 * MAX_DEFAULT_MIN_MS;
  if (ctx.fault('unlimited-as-failed')) args(name.unlimited)['x-delayed-retry-type'] = 'failed';
  return ctx.fault('no-policies') ? [] : policies;
}
