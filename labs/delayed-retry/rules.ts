/**
 * The rules of 4.3's native delayed retry beyond one type, measured one queue each (one message
 * per queue, its returns timed from delivery timestamps):
 *
 * - the four types: which returns each delays: reject(requeue) is a failed delivery, nack(requeue)
 *   a plain return (rabbit_fifo should_delay0, v4.3.5: all → both, failed → reject, returned → nack);
 * - min is required: a queue argument type without min means disabled; a policy without min is refused;
 *   a policy whose max is below its min is refused;
 * - max defaults to min: reject three times, the third wait is still min (not 3 × min);
 * - a policy's type wins over the queue argument, and of min (max) the lower of policy and argument wins;
 * - x-delivery-limit -1 (no limit): read in the source, handle_aux turns a return into a fresh
 *   enqueue that skips the delay when the limit is off; but the 0.9.1 client sends its returns with
 *   ra:pipeline_command (rabbit_fifo_client send_command, v4.3.5: the aux cast is commented out),
 *   so that path is not taken: measured on 4.3.6, the nack is delayed like the reject.
 */
import type { LabContext } from '../../src/lab.js';
import type { QueueSpec, PolicySpec } from '../../src/broker/topology.js';
import { closeChannel } from '../../src/broker/broker.js';
import { EnvError } from '../../src/errors.js';
import { deferred, gapsMs } from '../../src/time.js';
import type { RetryNames } from './names.js';

/**
 * the minimum of the type, policy and limit queues: a redelivery sooner than this was not delayed
 * (a redelivery without delay took up to 5xx ms on a loaded 2-core machine: 500 was too close)
 */
export const RULE_MIN_MS = 1000;
/** the max-default queue's minimum (three rejects: min each time when max defaults to it, else min, 2 × min, 3 × min) */
export const MAX_DEFAULT_MIN_MS = 600;
/** the larger value of the two precedence queues */
export const RULE_HIGH_MS = 3000;

export const TYPES = ['disabled', 'all', 'failed', 'returned'] as const;
type Action = 'reject' | 'nack';

const retry = (
  type: string,
  min?: number,
  max?: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  'x-delayed-retry-type': type,
  ...(min === undefined ? {} : { 'x-delayed-retry-min': min }),
  ...(max === undefined ? {} : { 'x-delayed-retry-max': max }),
  'x-delivery-limit': 20,
  ...extra,
});

/** the queues, as declared (broken variants change them at faults.ts) */
export function rulesQueues(name: RetryNames): QueueSpec[] {
  return [
    ...TYPES.map((t) => ({ name: name.type(t), args: retry(t, RULE_MIN_MS) })),
    { name: name.noMin, args: retry('all') },
    { name: name.maxDefault, args: retry('all', MAX_DEFAULT_MIN_MS) },
    // the policy's type (returned) wins over failed; the argument's lower min and max win over the policy's
    { name: name.policyType, args: retry('failed', RULE_MIN_MS, RULE_MIN_MS) },
    // the policy's lower min and max win over the argument's
    { name: name.policyMin, args: retry('all', RULE_HIGH_MS, RULE_HIGH_MS) },
    { name: name.unlimited, args: retry('all', RULE_MIN_MS, RULE_MIN_MS, { 'x-delivery-limit': -1 }) },
  ];
}

export function rulesPolicies(ctx: LabContext, name: RetryNames): PolicySpec[] {
  const p = (name: string, queue: string, definition: Record<string, unknown>): PolicySpec => ({
    name: ctx.names.p(name),
    pattern: ctx.names.exact(queue),
    definition,
    applyTo: 'quorum_queues',
    priority: 10,
  });
  return [
    p('me12-native-policy-type', name.policyType, {
      'delayed-retry-type': 'returned',
      'delayed-retry-min': RULE_HIGH_MS,
      'delayed-retry-max': RULE_HIGH_MS,
    }),
    p('me12-native-policy-min', name.policyMin, {
      'delayed-retry-type': 'all',
      'delayed-retry-min': RULE_MIN_MS,
      'delayed-retry-max': RULE_MIN_MS,
    }),
  ];
}

/** one message on `queue`, returned with each action in turn, then acked: the waits before each redelivery */
export async function returnGaps(ctx: LabContext, queue: string, actions: readonly Action[]): Promise<number[]> {
  const at: number[] = [];
  const done = deferred();
  const channel = await ctx.broker.newChannel();
  const consumer = await ctx.broker.consume(
    queue,
    (m) => {
      at.push(ctx.now());
      const action = actions[at.length - 1];
      if (action === 'reject') return m.reject(true);
      if (action === 'nack') return m.nack(true);
      m.ack();
      done.resolve();
    },
    { prefetch: 1, channel },
  );
  const id = `m-${queue.split('.').pop()}`;
  await ctx.broker.sendConfirmed(queue, id, { messageId: id });
  await ctx.within(
    Promise.race([done.promise, consumer.failure]),
    30_000,
    `${actions.length + 1} deliveries of ${id} on ${queue}`,
  );
  await consumer.cancel();
  await closeChannel(channel);
  return gapsMs(at);
}

/** delayed (the wait reached `min`) or immediate */
export const waited = (gapMs: number | undefined, min: number) =>
  gapMs === undefined ? 'missing' : gapMs >= min ? 'delayed' : 'immediate';

/** PUT a policy the broker should refuse; 'refused' (HTTP 4xx, its text kept) or 'accepted' (then deleted) */
export async function policyVerdict(
  ctx: LabContext,
  p: PolicySpec,
): Promise<{ verdict: 'refused' | 'accepted'; text: string }> {
  try {
    await ctx.mgmt.putPolicy(p);
  } catch (err) {
    if (err instanceof EnvError && /HTTP 4\d\d/.test(err.message))
      return { verdict: 'refused', text: err.message.replace(/^.*?HTTP /, 'HTTP ') };
    throw err;
  }
  await ctx.mgmt.deletePolicy(p.name);
  return { verdict: 'accepted', text: '' };
}

export interface RuleVerdicts {
  typeDelays: string;
  minRequired: string;
  policyMaxBelowMin: string;
  maxDefaultsToMin: number[];
  policyTypeWins: string;
  lowerMinWins: string;
  unlimitedLimitDelays: string;
  facts: Record<string, unknown>;
}

/**
 * declare the rules' queues and policies (broken variants change them: `breakRules`), wait until
 * the broker shows each policy on its queue, measure every queue at once, and remove the policies
 */
export async function runRules(
  ctx: LabContext,
  name: RetryNames,
  declare: (queues: QueueSpec[]) => Promise<void>,
  breakRules: (
    queues: QueueSpec[],
    policies: PolicySpec[],
    refusals: { withoutMin: PolicySpec; maxBelowMin: PolicySpec },
  ) => PolicySpec[],
): Promise<RuleVerdicts> {
  const queues = rulesQueues(name);
  const refuse = (policy: string, definition: Record<string, unknown>): PolicySpec => ({
    name: ctx.names.p(policy),
    pattern: ctx.names.exact(name.never),
    definition,
    applyTo: 'quorum_queues',
  });
  const refusals = {
    withoutMin: refuse('me12-native-without-min', { 'delayed-retry-type': 'all' }),
    maxBelowMin: refuse('me12-native-max-below-min', {
      'delayed-retry-type': 'all',
      'delayed-retry-min': RULE_MIN_MS,
      'delayed-retry-max': RULE_MIN_MS / 5,
    }),
  };
  const policies = breakRules(queues, rulesPolicies(ctx, name), refusals);
  await declare(queues);
  const all = rulesPolicies(ctx, name);
  try {
    for (const p of policies) await ctx.mgmt.putPolicy(p);
    for (const p of policies) {
      const queue = p.name === all[0]!.name ? name.policyType : name.policyMin;
      if (!(await ctx.mgmt.queueWhen(queue, (q) => q.policy === p.name, 10_000)))
        ctx.progress(`policy ${p.name} not shown on ${queue} after 10 s`);
    }
    const [types, noMin, maxDefault, policyType, policyMin, unlimited] = await Promise.all([
      Promise.all(TYPES.map((t) => returnGaps(ctx, name.type(t), ['reject', 'nack']))),
      returnGaps(ctx, name.noMin, ['reject']),
      returnGaps(ctx, name.maxDefault, ['reject', 'reject', 'reject']),
      returnGaps(ctx, name.policyType, ['reject', 'nack']),
      returnGaps(ctx, name.policyMin, ['reject']),
      returnGaps(ctx, name.unlimited, ['nack', 'reject']),
    ]);
    const [withoutMin, maxBelowMin] = [
      await policyVerdict(ctx, refusals.withoutMin),
      await policyVerdict(ctx, refusals.maxBelowMin),
    ];
    const delayedActions = (g: number[]) =>
      (['reject', 'nack'] as const).filter((_, i) => waited(g[i], RULE_MIN_MS) === 'delayed').join(',') || 'none';
    const minOf = (g: number | undefined) =>
      g === undefined
        ? 'missing'
        : g >= RULE_HIGH_MS
          ? String(RULE_HIGH_MS)
          : g >= RULE_MIN_MS
            ? String(RULE_MIN_MS)
            : 'none';
    return {
      typeDelays: TYPES.map((t, i) => `${t}=${delayedActions(types[i]!)}`).join(' '),
      minRequired: `argument=${waited(noMin[0], RULE_MIN_MS) === 'delayed' ? 'delayed' : 'not delayed'} policy=${withoutMin.verdict}`,
      policyMaxBelowMin: maxBelowMin.verdict,
      maxDefaultsToMin: maxDefault.map((g) => Math.floor(g / MAX_DEFAULT_MIN_MS)),
      policyTypeWins: `reject=${waited(policyType[0], RULE_MIN_MS)} nack=${waited(policyType[1], RULE_MIN_MS)}`,
      lowerMinWins: `argument-lower=${minOf(policyType[1])} policy-lower=${minOf(policyMin[0])}`,
      unlimitedLimitDelays: `nack=${waited(unlimited[0], RULE_MIN_MS)} reject=${waited(unlimited[1], RULE_MIN_MS)}`,
      facts: {
        gapsMs: {
          types: Object.fromEntries(TYPES.map((t, i) => [t, types[i]])),
          noMin,
          maxDefault,
          policyType,
          policyMin,
          unlimited,
        },
        refused: { withoutMin: withoutMin.text, maxBelowMin: maxBelowMin.text },
        policies: policies.map((p) => ({ name: p.name, definition: p.definition })),
      },
    };
  } finally {
    for (const p of all) await ctx.mgmt.deletePolicy(p.name);
  }
}
