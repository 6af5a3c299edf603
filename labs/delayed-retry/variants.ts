/**
 * TEST ONLY: delayed-retry's broken variants (declared in meta.ts; MQLAB_FAULT=delayed-retry:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: each changes the queues as declared or a
 * native consumer (`DelayedRetrySteps`, lab.ts), or the rules' queues and policies (`RulesSpec`, rules.ts).
 * A variant that adds a route declares it with the lab's queues and removes it when the run ends, so
 * the next run sees the lab's own topology.
 */
import {
  closeChannel,
  withoutQueueArgs as withoutArgs,
  type LabContext,
  type PolicySpec,
  type Topology,
  type VariantsOf,
} from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { DelayedRetrySteps } from './lab.js';
import { SPEC } from './delays.js';
import { names, type RetryNames } from './names.js';
import { MAX_DEFAULT_MIN_MS, RULE_MIN_MS, type RulesSpec } from './rules.js';

type Route = { queue: string; exchange: string; key: string };

/** the topology with one more binding, and (`during`) the binding removed once the run ended */
const extraRoute = (where: 'native' | 'ladder', route: (name: RetryNames) => Route) => ({
  steps: (s: DelayedRetrySteps, ctx: LabContext) => {
    const t: Topology = s[where];
    return { [where]: { ...t, bindings: [...(t.bindings ?? []), route(names(ctx.names))] } };
  },
  // declared with the lab's queues; removed when the run ends
  during: (ctx: LabContext) =>
    Promise.resolve(async () => {
      const r = route(names(ctx.names));
      const ch = await ctx.broker.newChannel();
      await ch.unbindQueue(r.queue, r.exchange, r.key).catch(() => {});
      await closeChannel(ch);
    }),
});

/** the rules with one queue's arguments changed */
const withArgs = (rules: RulesSpec, queue: string, args: Record<string, unknown>): RulesSpec => ({
  ...rules,
  queues: rules.queues.map((q) => (q.name === queue ? { ...q, args: { ...q.args, ...args } } : q)),
});

/** a policy with its definition changed */
const defined = (p: PolicySpec, definition: Record<string, unknown>): PolicySpec => ({
  ...p,
  definition: { ...p.definition, ...definition },
});

export const variants: VariantsOf<typeof meta, DelayedRetrySteps> = {
  // the native queues declared without x-delayed-retry-*
  'no-delayed-retry': (s) => ({
    native: withoutArgs(
      s.native,
      () => true,
      (k) => k.startsWith('x-delayed-retry'),
    ),
  }),
  // the held queue declared without x-max-length
  'no-max-length': (s, ctx) => ({
    native: withoutArgs(
      s.native,
      (q) => q === names(ctx.names).held,
      (k) => k === 'x-max-length',
    ),
  }),
  'nack-for-reject': () => ({ returnReject: (m) => m.nack(true) }),
  'reject-for-nack': () => ({ returnNack: (m) => m.reject(true) }),
  // each return comes three caps late
  'slow-consumer': (s, ctx) => ({
    returnReject: async (m) => {
      await ctx.sleep(3 * SPEC.maxMs);
      return s.returnReject(m);
    },
    returnNack: async (m) => {
      await ctx.sleep(3 * SPEC.maxMs);
      return s.returnNack(m);
    },
  }),
  // the native reject queue also bound to an exchange (amq.direct), as a ladder's queue would be: the
  // native design is no longer one queue and nothing else
  'native-bound': extraRoute('native', (name) => ({ queue: name.reject, exchange: 'amq.direct', key: name.reject })),
  // the ladder's work queue bound to its retry exchange with the first tier's key: the first retry comes
  // back at once, beside the copy that waits in tier 1
  'work-bound-to-retry': extraRoute('ladder', (name) => ({
    queue: name.ladderWork,
    exchange: name.ladderRetry,
    key: 'tier-1',
  })),
  // the failed type's queue declared with type all: a nack is delayed too
  'failed-as-all': (s, ctx) => ({
    rules: withArgs(s.rules, names(ctx.names).type('failed'), { 'x-delayed-retry-type': 'all' }),
  }),
  // the no-min queue and the policy without min both get a min
  'min-given': (s, ctx) => {
    const rules = withArgs(s.rules, names(ctx.names).noMin, { 'x-delayed-retry-min': RULE_MIN_MS });
    const withoutMin = defined(rules.refusals.withoutMin, { 'delayed-retry-min': RULE_MIN_MS });
    return { rules: { ...rules, refusals: { ...rules.refusals, withoutMin } } };
  },
  // the policy whose max is below its min gets max = min: accepted
  'max-not-below-min': (s) => {
    const p = s.rules.refusals.maxBelowMin;
    const maxBelowMin = defined(p, { 'delayed-retry-max': p.definition['delayed-retry-min'] });
    return { rules: { ...s.rules, refusals: { ...s.rules.refusals, maxBelowMin } } };
  },
  // the max-default queue declared with max = 3 × min: the waits grow
  'max-given': (s, ctx) => ({
    rules: withArgs(s.rules, names(ctx.names).maxDefault, { 'x-delayed-retry-max': 3 * MAX_DEFAULT_MIN_MS }),
  }),
  // the two precedence policies are not applied
  'no-policies': (s) => ({ rules: { ...s.rules, policies: [] } }),
  // the limit -1 queue declared with type failed: its nack is not delayed
  'unlimited-as-failed': (s, ctx) => ({
    rules: withArgs(s.rules, names(ctx.names).unlimited, { 'x-delayed-retry-type': 'failed' }),
  }),
};
