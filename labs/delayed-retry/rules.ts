/**
 * The rules of 4.3's native delayed retry beyond one type, measured one queue each (one message
 * per queue; each return judged by what the queue hands over next, marker.ts):
 *
 * - the four types: which returns each delays: reject(requeue) is a failed delivery, nack(requeue)
 *   a plain return (rabbit_fifo should_delay0, v4.3.5: all → both, failed → reject, returned → nack);
 * - min is required: a queue argument type without min means disabled; a policy without min is refused;
 *   a policy whose max is below its min is refused;
 * - max defaults to min: a message at x-delivery-count 2 waits no longer than a fresh one (marker.ts);
 * - a policy's type wins over the queue argument, and of min (max) the lower of policy and argument wins;
 * - x-delivery-limit -1 (no limit): read in the source, handle_aux turns a return into a fresh
 *   enqueue that skips the delay when the limit is off; but the 0.9.1 client sends its returns with
 *   ra:pipeline_command (rabbit_fifo_client send_command, v4.3.5: the aux cast is commented out),
 *   so that path is not taken: measured on 4.3.6, the nack is delayed like the reject.
 *
 * Delayed or not is the broker's order, not a time (marker.ts); only how long a delayed return
 * waited (lowerMinWins: 1000 or 3000 ms) is read from timestamps, with the margin the two minima give.
 */
import { type LabContext, type QueueSpec, type PolicySpec, EnvError } from '../../src/kit/index.js';
import type { RetryNames } from './names.js';
import { judgeReturns, returnedTogether, type Action, type Judged } from './marker.js';

/** the minimum of the type, policy and limit queues */
export const RULE_MIN_MS = 1000;
/** the max-default queue's minimum (at x-delivery-count 2: min when max defaults to it, 2 × min when max is 3 × min) */
export const MAX_DEFAULT_MIN_MS = 600;
/** the larger value of the two precedence queues */
const RULE_HIGH_MS = 3000;

const TYPES = ['disabled', 'all', 'failed', 'returned'] as const;

/**
 * How long one queue's returns may take, all told: its waits (at most RULE_HIGH_MS each) plus, per
 * delivery, the 30 s a loaded cluster's answer may take (the broker's own bound on a queue command:
 * rabbit_fifo_client COMMAND_TIMEOUT, v4.3.5). A bound, not a verdict: no check reads it.
 */
const boundFor = (deliveries: number) => deliveries * (RULE_HIGH_MS + 30_000);

/**
 * A policy is on its queue once the PUT has answered (the PUT updates the queue record, then the
 * queue's state machine, before it returns: rabbit_policy update_matched_objects →
 * rabbit_quorum_queue policy_changed → ra:process_command, v4.3.5). One look at the queue's record
 * after the PUT (Management.queueNow: the statistics showed it about 2 s later on 4.3.6, and that
 * look was a 2 s wait of every run); if it is not there yet, look again once a second for one
 * quorum-queue tick (5 s, TICK_INTERVAL v4.3.5, when the queue re-applies a policy it missed).
 */
const POLICY_SHOWN_MS = 5000;
/** a policy PUT or DELETE: the request's own 30 s for the record, plus the broker's 30 s for each queue it changes (one) */
const POLICY_REQUEST_MS = 60_000;

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

/** the queues, as declared */
function rulesQueues(name: RetryNames): QueueSpec[] {
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

function rulesPolicies(ctx: LabContext, name: RetryNames): PolicySpec[] {
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

/** PUT a policy the broker should refuse; 'refused' (HTTP 4xx, its text kept) or 'accepted' (then deleted) */
async function policyVerdict(
  ctx: LabContext,
  p: PolicySpec,
): Promise<{ verdict: 'refused' | 'accepted'; text: string }> {
  try {
    await ctx.mgmt.putPolicy(p, POLICY_REQUEST_MS);
  } catch (err) {
    if (err instanceof EnvError && /HTTP 4\d\d/.test(err.message))
      return { verdict: 'refused', text: err.message.replace(/^.*?HTTP /, 'HTTP ') };
    throw err;
  }
  await ctx.mgmt.deletePolicy(p.name, POLICY_REQUEST_MS);
  return { verdict: 'accepted', text: '' };
}

interface RuleVerdicts {
  typeDelays: string;
  minRequired: string;
  policyMaxBelowMin: string;
  maxDefaultsToMin: string;
  policyTypeWins: string;
  lowerMinWins: string;
  unlimitedLimitDelays: string;
  facts: Record<string, unknown>;
}

/** the rules' queues and policies as declared, and two policies the broker must refuse (a broken variant changes them) */
export interface RulesSpec {
  queues: QueueSpec[];
  policies: PolicySpec[];
  refusals: { withoutMin: PolicySpec; maxBelowMin: PolicySpec };
}

export function rulesSpec(ctx: LabContext, name: RetryNames): RulesSpec {
  const refuse = (policy: string, definition: Record<string, unknown>): PolicySpec => ({
    name: ctx.names.p(policy),
    pattern: ctx.names.exact(name.never),
    definition,
    applyTo: 'quorum_queues',
  });
  return {
    queues: rulesQueues(name),
    policies: rulesPolicies(ctx, name),
    refusals: {
      withoutMin: refuse('me12-native-without-min', { 'delayed-retry-type': 'all' }),
      maxBelowMin: refuse('me12-native-max-below-min', {
        'delayed-retry-type': 'all',
        'delayed-retry-min': RULE_MIN_MS,
        'delayed-retry-max': RULE_MIN_MS / 5,
      }),
    },
  };
}

/**
 * declare the rules' queues and policies, wait until the broker shows each policy on its queue,
 * measure every queue at once, and remove the policies
 */
export async function runRules(
  ctx: LabContext,
  name: RetryNames,
  /** the broker takes delayed-retry-* as policy keys (4.3.1+); without them no policy is PUT and its verdicts are 'not run' */
  policyKeys: boolean,
  declare: (queues: QueueSpec[]) => Promise<void>,
  { queues, policies: declared, refusals }: RulesSpec,
): Promise<RuleVerdicts> {
  const policies = policyKeys ? declared : [];
  await declare(queues);
  const all = rulesPolicies(ctx, name);
  const put: string[] = [];
  try {
    for (const p of policies) {
      put.push(p.name); // deleted at the end even if its PUT timed out after the broker took it
      await ctx.mgmt.putPolicy(p, POLICY_REQUEST_MS);
    }
    for (const p of policies) {
      const queue = p.name === all[0]!.name ? name.policyType : name.policyMin;
      const shown = (await ctx.mgmt.queueNow(queue))?.policy === p.name;
      if (!shown && !(await ctx.mgmt.queueWhen(queue, (q) => q.policy === p.name, POLICY_SHOWN_MS, 1000, 'now')))
        ctx.progress(`policy ${p.name} not shown on ${queue} ${POLICY_SHOWN_MS / 1000} s after its PUT answered`);
    }
    const judge = (queue: string, actions: Action[], min = RULE_MIN_MS) =>
      judgeReturns(ctx, queue, actions, min, boundFor(actions.length + 1));
    const [types, noMin, maxDefault, policyType, policyMin, unlimited] = await Promise.all([
      Promise.all(TYPES.map((t) => judge(name.type(t), ['reject', 'nack']))),
      judge(name.noMin, ['reject']),
      returnedTogether(ctx, name.maxDefault, boundFor(5)),
      judge(name.policyType, ['reject', 'nack']),
      judge(name.policyMin, ['reject']),
      judge(name.unlimited, ['nack', 'reject']),
    ]);
    const notRun = { verdict: 'not run', text: '' };
    const [withoutMin, maxBelowMin] = policyKeys
      ? [await policyVerdict(ctx, refusals.withoutMin), await policyVerdict(ctx, refusals.maxBelowMin)]
      : [notRun, notRun];
    const v = (j: Judged[], i: number) => j[i]?.verdict ?? 'missing';
    const delayedActions = (j: Judged[]) =>
      j
        .filter((r) => r.verdict === 'delayed')
        .map((r) => r.action)
        .join(',') || 'none';
    // a delayed return waited RULE_MIN_MS or RULE_HIGH_MS: never less (the broker is not early), so
    // a wait of RULE_HIGH_MS or more is read as the higher; the lower one may come that much late
    const minOf = (r: Judged | undefined) =>
      r?.verdict !== 'delayed' ? 'none' : r.gapMs >= RULE_HIGH_MS ? String(RULE_HIGH_MS) : String(RULE_MIN_MS);
    return {
      typeDelays: TYPES.map((t, i) => `${t}=${delayedActions(types[i]!)}`).join(' '),
      minRequired: `argument=${v(noMin, 0) === 'delayed' ? 'delayed' : 'not delayed'} policy=${withoutMin.verdict}`,
      policyMaxBelowMin: maxBelowMin.verdict,
      maxDefaultsToMin: `x-delivery-count ${maxDefault.order.join(', then ')}`,
      policyTypeWins: `reject=${v(policyType, 0)} nack=${v(policyType, 1)}`,
      lowerMinWins: `argument-lower=${minOf(policyType[1])} policy-lower=${minOf(policyMin[0])}`,
      unlimitedLimitDelays: `nack=${v(unlimited, 0)} reject=${v(unlimited, 1)}`,
      facts: {
        returns: {
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
    for (const p of put) await ctx.mgmt.deletePolicy(p, POLICY_REQUEST_MS);
  }
}
