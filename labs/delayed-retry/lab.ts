/**
 * delayed-retry (docs/labs/delayed-retry.md): RabbitMQ 4.3's native delayed retry for quorum queues, measured, next
 * to the TTL ladder that does the same schedule by hand. Older brokers: SKIP (capability
 * nativeDelayedRetry, derived from the broker version in src/broker/capabilities.ts); 4.3.0 takes
 * the arguments but no policy keys (delayedRetryPolicyKeys, 4.3.1): the policy rules SKIP there.
 */
import {
  type LabContext,
  declareTopology,
  purgeTopology,
  type QueueSpec,
  type Topology,
  check,
  checkAtLeast,
  checkAtMost,
  skipCheck,
  javaList,
  gapsMs,
  labCode,
  type Delivery,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { HOLD_MS, SPEC, expectedDelays, judgeGaps, ladderTiers } from './delays.js';
import { ladderTopology, names, nativeTopology } from './names.js';
import { ladderReturns, nativeReturns } from './returns.js';
import { holdOne } from './held.js';
import { MAX_DEFAULT_MIN_MS, RULE_MIN_MS, runRules, rulesSpec, type RulesSpec } from './rules.js';

/** the queues as declared, and how the native consumers return a message (a broken variant changes one: variants.ts, TEST ONLY) */
export interface DelayedRetrySteps {
  /** the native design's queues */
  native: Topology;
  /** the TTL ladder's queues, exchanges and bindings */
  ladder: Topology;
  /** how the reject queue's consumer hands a message back: reject, requeue=true */
  returnReject(m: Delivery): void | Promise<void>;
  /** how the nack queue's consumer hands a message back: nack, requeue=true */
  returnNack(m: Delivery): void | Promise<void>;
  /** the rules' queues and policies */
  rules: RulesSpec;
}

/**
 * How late a return may come: the schedule's longest delay (its cap), plus this process's own worst
 * event-loop delay while the returns ran, up to one cap more. Early is never allowed (the broker holds it);
 * late is the machine's share — ten runs at once on 2 cores at load 20–26 came back up to 760 ms late,
 * over the cap alone. The broken `slow-consumer` works three caps before each return: past any margin.
 */
const LATE_CAP_MS = SPEC.maxMs;
const lateMargin = (loopDelayMs: number) => LATE_CAP_MS + Math.min(loopDelayMs, LATE_CAP_MS);

export const lab = labCode(meta, {
  async run(ctx) {
    if (!ctx.caps.nativeDelayedRetry)
      return { lines: [], checks: [], skipped: `needs RabbitMQ 4.3 (this broker: ${ctx.caps.version})` };
    const name = names(ctx.names);
    // the queues and the native consumers, as taught
    const steps = ctx.steps<DelayedRetrySteps>({
      native: nativeTopology(name, SPEC, HOLD_MS),
      ladder: ladderTopology(name, SPEC),
      returnReject: (m) => m.reject(true),
      returnNack: (m) => m.nack(true),
      rules: rulesSpec(ctx, name),
    });
    const { native, ladder } = steps;
    for (const t of [native, ladder]) {
      await declareTopology(ctx.broker, t, (q) =>
        ctx.progress(`queue ${q} had other arguments; deleted and declared again`),
      );
      await purgeTopology(ctx.broker, t);
    }

    // the management client's first request opens its connection: not inside a timed gap
    await ctx.mgmt.queue(name.held);
    const declareRules = async (queues: QueueSpec[]) => {
      await declareTopology(ctx.broker, { queues }, (q) =>
        ctx.progress(`queue ${q} had other arguments; deleted and declared again`),
      );
      await purgeTopology(ctx.broker, { queues });
    };
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    // the event loop's own delays while the returns are timed: the machine's share of their lateness
    loopDelay.enable();
    const [reject, nack, viaLadder, held] = await Promise.all([
      nativeReturns(ctx, name.reject, (m) => steps.returnReject(m), SPEC.returns),
      nativeReturns(ctx, name.nack, (m) => steps.returnNack(m), SPEC.returns),
      ladderReturns(ctx, name.ladderWork, name.ladderRetry, ladderTiers(SPEC).length, SPEC.returns),
      holdOne(ctx, name.held, HOLD_MS),
    ]).finally(() => loopDelay.disable());
    // after the hold, not beside it: its statistics sample needs a management API that is not busy with the rules' policies
    const rules = await runRules(ctx, name, ctx.caps.delayedRetryPolicyKeys, declareRules, steps.rules);
    const size = {
      native: await topologySize(ctx, { queues: [{ name: name.reject }] }),
      ladder: await topologySize(ctx, ladder),
    };
    const depth = (await Promise.all([...native.queues, ...ladder.queues].map((q) => ctx.broker.depth(q.name)))).reduce(
      (a, b) => a + b,
      0,
    );

    // the rules a policy sets: 4.3.0 takes the arguments but refuses delayed-retry-* in a policy (policy keys from 4.3.1)
    const policyCheck = (
      n: 'minRequired' | 'policyMaxBelowMin' | 'policyTypeWins' | 'lowerMinWins',
      want: string,
      got: string,
    ) =>
      ctx.caps.delayedRetryPolicyKeys
        ? check(n, want, got)
        : skipCheck(n, want, `needs delayed-retry-* as policy keys: RabbitMQ 4.3.1 (this broker: ${ctx.caps.version})`);
    const loopDelayMs = Math.round(loopDelay.max / 1e6);
    const margin = lateMargin(loopDelayMs);
    const gaps = { reject: gapsMs(reject.at), nack: gapsMs(nack.at), ladder: gapsMs(viaLadder.at) };
    const want = { reject: expectedDelays(SPEC, 'reject'), nack: expectedDelays(SPEC, 'nack') };
    const v = {
      reject: judgeGaps(gaps.reject, want.reject),
      nack: judgeGaps(gaps.nack, want.nack),
      ladder: judgeGaps(gaps.ladder, want.reject),
    };

    return {
      lines: [
        `delayed-retry: rejectGapsMs=${javaList(gaps.reject)} nackGapsMs=${javaList(gaps.nack)} ladderGapsMs=${javaList(gaps.ladder)} ` +
          `native=(${size.native}) ladder=(${size.ladder}) meanErrorMs native=${v.reject.meanErrorMs} ladder=${v.ladder.meanErrorMs}`,
      ],
      checks: [
        check('rejectEarlyGaps', 0, v.reject.early),
        checkAtMost('rejectMaxLateMs', margin, v.reject.maxLateMs),
        check(
          'rejectDeliveryCounts',
          want.reject.map((_, i) => i + 1),
          reject.deliveryCount.slice(1),
        ),
        check('nackEarlyGaps', 0, v.nack.early),
        checkAtMost('nackMaxLateMs', margin, v.nack.maxLateMs),
        check(
          'nackDeliveryCounts',
          want.nack.map(() => 0),
          nack.deliveryCount.slice(1),
        ),
        check('heldInQueue', 'messages=1 ready=0 unacked=0', held.stats),
        check('maxLengthCountsHeld', 'second=accepted third=refused', held.publishes),
        checkAtLeast('heldGapMs', HOLD_MS, held.gapMs),
        check('nativeTopology', 'queues=1 exchanges=0 bindings=0', size.native),
        check(
          'ladderTopology',
          `queues=${1 + ladderTiers(SPEC).length} exchanges=1 bindings=${ladderTiers(SPEC).length}`,
          size.ladder,
        ), // a work queue + one per distinct delay
        check('ladderEarlyGaps', 0, v.ladder.early),
        check('queueDepthAfter', 0, depth),
        // the rules (rules.ts): which returns each type delays; min required; max = min by default; precedence; limit -1
        check('typeDelays', 'disabled=none all=reject,nack failed=reject returned=nack', rules.typeDelays),
        policyCheck('minRequired', 'argument=not delayed policy=refused', rules.minRequired),
        policyCheck('policyMaxBelowMin', 'refused', rules.policyMaxBelowMin),
        // X at x-delivery-count 2 and a fresh Y nacked together: with max = min, X back first (max = 3 × min: Y first)
        check('maxDefaultsToMin', 'x-delivery-count 2, then 0', rules.maxDefaultsToMin),
        policyCheck('policyTypeWins', 'reject=immediate nack=delayed', rules.policyTypeWins),
        policyCheck('lowerMinWins', `argument-lower=${RULE_MIN_MS} policy-lower=${RULE_MIN_MS}`, rules.lowerMinWins),
        // x-delivery-limit -1: the nack is delayed too (measured on 4.3.6; the source's skip is not on the 0.9.1 path, rules.ts)
        check('unlimitedLimitDelays', 'nack=delayed reject=delayed', rules.unlimitedLimitDelays),
      ],
      facts: {
        spec: SPEC,
        holdMs: HOLD_MS,
        /** this process's worst event-loop delay while the returns ran, and the lateness allowed from it */
        loopDelayMs,
        lateMarginMs: margin,
        expected: want,
        gaps,
        verdicts: v,
        headers: { reject, nack },
        held,
        rules: { maxDefaultMinMs: MAX_DEFAULT_MIN_MS, ...rules.facts },
      },
    };
  },
});

/**
 * what the management API shows of one approach: its queues, the exchanges that route to them or
 * that it declares, and their bindings (not the default exchange's). One small request per queue
 * and per exchange, never a listing of the whole vhost (ten runs at once on a cluster made those slow).
 */
async function topologySize(ctx: LabContext, t: Topology): Promise<string> {
  const declared = (t.exchanges ?? []).map((e) => e.name);
  const [qs, qBindings, xs, xBindings] = await Promise.all([
    Promise.all(t.queues.map((q) => ctx.mgmt.queue(q.name))),
    Promise.all(t.queues.map((q) => ctx.mgmt.queueBindings(q.name))),
    Promise.all(declared.map((x) => ctx.mgmt.exchange(x))),
    Promise.all(declared.map((x) => ctx.mgmt.exchangeBindings(x))),
  ]);
  const routes = new Map(
    [...qBindings.flat(), ...xBindings.flat()]
      .filter((b) => b.source !== '')
      .map((b) => [`${b.source}|${b.destination_type}|${b.destination}|${b.routing_key}`, b]),
  );
  const exchanges = new Set([
    ...[...routes.values()].map((b) => b.source),
    ...xs.filter((x) => x !== null).map((x) => x.name),
  ]);
  return `queues=${qs.filter((q) => q !== null).length} exchanges=${exchanges.size} bindings=${routes.size}`;
}
