/**
 * hold — the RetryLab program's `hold` mode (docs/labs/hold.md): at-least-once dead lettering keeps a
 * rejected message while its target is unbound, and the broker's own worker delivers it once the target is back
 * (the queues, the route and the policy are in names.ts).
 */
import { randomUUID } from 'node:crypto';
import {
  type LabContext,
  type Delivery,
  type PolicySpec,
  type PublishProps,
  type QueueStats,
  TimedOut,
  check,
  deferred,
  ticking,
  heldLetters,
  policyLine,
  statsLine,
  text,
  labCode,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { BODY, EVENT_ID, ROUTING_KEY, RUN_HEADER, holdPolicy, names, topology } from './names.js';
import { StatsWatch } from './stats-watch.js';
import {
  emptyAfter,
  emptyGraceMs,
  heldAfterDeliveryMs,
  heldSample,
  mayClearPolicy,
  policyOnSource,
  republishEvidence,
  sourceAfter,
  sourceWhileHeld,
} from './verdicts.js';

/** the steps of the hold experiment a broken variant may replace (variants.ts, TEST ONLY) */
export interface HoldSteps {
  /** the at-least-once policy the lab applies to the source */
  policy: PolicySpec;
  /** the event this run publishes (its run header tells it from an earlier run's) */
  event: { body: string; props: PublishProps };
  /** the target loses its route from the dead-letter exchange */
  unbindTarget(): Promise<unknown>;
  /** the event is published to the source */
  publish(): Promise<void>;
  /** the target's route is restored */
  rebindTarget(): Promise<unknown>;
}

/** the window in which the unbound target must stay empty */
const WINDOW_MS = 2000;

interface Received {
  at: number;
  messageId: string | undefined;
  body: string;
  run: string;
  headers: Record<string, unknown>;
}

export const lab = labCode(meta, {
  topology,

  async run(ctx) {
    if (!ctx.caps.atLeastOnceDeadLettering)
      return {
        lines: [],
        checks: [],
        skipped: `RabbitMQ ${ctx.caps.version} has no at-least-once dead lettering (3.10+)`,
      };
    const name = names(ctx.names);
    const { broker, mgmt, log } = ctx;
    const { recoverTimeoutMs } = ctx.options;
    const runId = randomUUID();
    const policy = holdPolicy(ctx.names, ctx.caps);
    const event = { body: BODY, props: { messageId: EVENT_ID, headers: { [RUN_HEADER]: runId } } };
    // the experiment's steps, as taught
    const steps = ctx.steps<HoldSteps>({
      policy,
      event,
      unbindTarget: () => broker.channel.unbindQueue(name.target, name.dlx, ROUTING_KEY),
      publish: async () => {
        await broker.sendConfirmed(name.source, event.body, event.props);
        log.emit('producer', { messageId: EVENT_ID, destination: name.source, status: 'confirmed' });
      },
      rebindTarget: () => broker.channel.bindQueue(name.target, name.dlx, ROUTING_KEY),
    });

    // The policy, applied by the lab. One left by an interrupted run goes first: switching
    // at-least-once off deletes the letters it still holds, on every line (a purge does so only
    // from 4.3.0: rabbit_fifo dlx_purge; on 3.10.8 it leaves them).
    const earlierPolicy = (await mgmt.policy(policy.name)) !== null;
    if (earlierPolicy) {
      ctx.progress(
        `policy ${policy.name} was left by an earlier run: clearing it first drops the letters that run still held`,
      );
      await mgmt.deletePolicy(policy.name);
    }
    // From here on the source is read in the background, as the broker holds it (Management.queueNow):
    // the policy from the queue's record, at once; the counts from the quorum queue's counters, one
    // tick late; nothing waits for the readings on the way. The counters may still show a letter an
    // earlier run left held (right after an interrupted run, or right after another run on a broker
    // with a slow tick): a reading of a held letter counts as this run's only after one that showed
    // none (verdicts.ts). The lab does not wait for them to drop it: that would delay the rejection,
    // and with it the broker's worker, by up to a tick (5 s on an untuned broker).
    const watch = new StatsWatch(mgmt, name.source, () => ctx.now(), ctx.ended);
    // The policy, and the target losing its binding (and anything an earlier run left in it): both before the publish.
    const [, leftInTarget] = await Promise.all([
      mgmt.putPolicy(steps.policy),
      steps.unbindTarget().then(async () => (await broker.channel.purgeQueue(name.target)).messageCount),
    ]);
    ctx.progress(
      `applied policy ${policy.name} to ${policy.pattern} (apply-to ${policy.applyTo}${ctx.caps.policyApplyToQuorumQueues ? '' : `: RabbitMQ ${ctx.caps.version} has no quorum_queues`}): ${JSON.stringify(policy.definition)}`,
    );
    log.emit('policy', {
      policy: policy.name,
      pattern: policy.pattern,
      applyTo: policy.applyTo,
      queue: name.source,
      status: 'applied',
    });

    // What the broker stored, and the binding gone: read while the letter is published and rejected.
    const storedRead = begun(mgmt.policy(policy.name));
    const unboundRead = begun(targetBound(ctx, name).then((bound) => !bound));
    // A push consumer watches the target from now on.
    const received: Received[] = [];
    const ours = deferred<Received>();
    const target = await broker.consume(
      name.target,
      (m: Delivery) => {
        const r = {
          at: ctx.now(),
          messageId: m.messageId,
          body: m.body,
          run: text(m.headers[RUN_HEADER]),
          headers: m.headers,
        };
        received.push(r);
        m.ack(); // take every letter, so the target ends empty
        log.emit('target', {
          messageId: r.messageId,
          destination: name.target,
          run: r.run === runId ? 'this' : 'other',
          status: 'received',
        });
        if (r.run === runId) ours.resolve(r);
      },
      { prefetch: 10 },
    );
    const mine = () => received.filter((r) => r.run === runId);
    const brokerDelivery = () => mine().find((r) => republishEvidence(r.headers, name.source).death !== null);

    // Publish, then reject the delivery without requeue: the policy dead-letters it.
    const rejected = deferred<number>();
    const source = await broker.consume(name.source, (m) => {
      m.reject(false);
      log.emit('consumer', { messageId: m.messageId, destination: name.source, status: 'rejected_to_dlx' });
      if (m.headers[RUN_HEADER] === runId) rejected.resolve(ctx.now());
    });
    try {
      await steps.publish();
      const rejectedAt = await ctx.within(
        Promise.race([rejected.promise, source.failure]),
        5000,
        `${EVENT_ID} on ${name.source}`,
      );
      await source.cancel();
      const stored = (await storedRead()) ?? undefined;
      const targetUnbound = await unboundRead();

      // The window: 2 s in which nothing may reach the unbound target.
      ctx.progress(`rejected ${EVENT_ID}; ${name.target} stays unbound for ${WINDOW_MS / 1000} s`);
      await ctx.sleep(WINDOW_MS);
      const targetDepthUnbound = await broker.depth(name.target);
      const targetEmpty = mine().length === 0 && targetDepthUnbound === 0;
      const sampled = watch.last()?.stats ?? null;
      log.emit('mgmt', {
        queue: name.source,
        messages: sampled?.messages,
        ready: sampled?.ready,
        unacked: sampled?.unacked,
        status: 'sampled',
      });
      // The policy cleared from outside (Try this 2: `mqlab ctl clear_policy …`, the UI, another client)
      // from here on: the source's record names no policy at once, and clearing an at-least-once policy
      // deletes what the broker held. Noticed from the readings the watch takes anyway, also at the pause.
      const cleared = outsideClear(ctx, watch, name.source, policy.name, () => brokerDelivery() !== undefined);
      await ctx.checkpoint('letter-held', {
        queue: name.source,
        stats: statsLine(sampled),
        target: name.target,
        targetDepth: targetDepthUnbound,
      });

      // Rebind and wait: nothing is published again; the broker's worker re-routes on its timer.
      await steps.rebindTarget();
      const reboundAt = ctx.now();
      const bindingRestored = await targetBound(ctx, name);
      ctx.progress(
        `bound ${name.target} again; waiting up to ${recoverTimeoutMs / 1000} s for the broker's dead-letter worker: it re-routes held letters when ` +
          `its confirm-timeout timer fires (dead_letter_worker_publisher_confirm_timeout: 180 s on an untuned broker, 1 s on mqlab's services), not on a rebind`,
      );
      const since = (t: number) => Math.round((ctx.now() - t) / 1000);
      const recovered = await ticking(
        ctx,
        () =>
          `still waiting for the dead-letter worker: ${since(rejectedAt)} s since the rejection, ${since(reboundAt)} s since the rebind; the application publishes nothing`,
        () =>
          ctx
            .within(
              Promise.race([
                ours.promise,
                target.failure,
                cleared.then((c) => (c ? null : new Promise<never>(() => {}))),
              ]),
              recoverTimeoutMs,
              `the broker's dead-letter worker to deliver ${EVENT_ID} to ${name.target}`,
            )
            .catch((err) => {
              if (err instanceof TimedOut) return null; // judged below: recoveredOriginalEvent says FAIL
              throw err;
            }),
      );
      const clearedFromOutside = await Promise.race([cleared, Promise.resolve(null)]);
      // (a policy cleared from outside was said when it was seen)
      if (!recovered && !clearedFromOutside)
        ctx.progress(
          `nothing reached ${name.target} within ${recoverTimeoutMs / 1000} s of the rebind (raise --recover-timeout on a broker with a slower dead-letter worker)`,
        );
      const evidence = republishEvidence(recovered?.headers ?? {}, name.source);
      const recoveredOriginalEvent = recovered?.messageId === EVENT_ID && recovered.body === BODY;
      // nothing recovered to show when the letter was deleted with the policy: no pause for it
      if (!clearedFromOutside)
        await ctx.checkpoint('recovered', {
          messageId: recovered?.messageId ?? 'none',
          afterRebindMs: recovered ? Math.round(recovered.at - reboundAt) : 'none',
        });

      // The counters: wait for them to show the source empty only as long as they took to show
      // the held letter (never on a broker whose counters are slower than the hold).
      const seen = (emptyWaitMs = 0) => ({
        source: name.source,
        policy: policy.name,
        samples: watch.samples,
        rejectedAt,
        brokerDelivered: brokerDelivery() !== undefined,
        deliveredAt: brokerDelivery()?.at ?? null,
        emptyWaitMs,
      });
      const grace = emptyGraceMs(seen(), WINDOW_MS);
      const held = heldSample(seen());
      if (held && grace > 0) await watch.until((q) => q.messages === 0, held.at + 1, grace);
      watch.stop();
      const stats = seen(grace);
      const empty = emptyAfter(stats, held);

      // Clear the policy only when no letter of this run can still be held: clearing deletes held letters.
      let policyCleared = false;
      if (mayClearPolicy(stats)) {
        await mgmt.deletePolicy(policy.name);
        policyCleared = (await mgmt.policy(policy.name)) === null;
        if (!clearedFromOutside)
          ctx.progress(`no letter of this run is held in ${name.source}: cleared policy ${policy.name}`);
      } else {
        ctx.progress(
          `kept policy ${policy.name}: ${name.source} shows ${statsLine(watch.last()?.stats ?? null)}; clearing it now would delete held letters`,
        );
      }
      log.emit('policy', { policy: policy.name, status: policyCleared ? 'cleared' : 'kept' });
      await target.cancel();
      const targetDepthAfter = await broker.depth(name.target);
      const deliveries = mine();
      // every copy of this run's event that reached the target was dead-lettered by the broker (x-death of the source)
      const noApplicationRepublish =
        deliveries.length > 0 && deliveries.every((r) => republishEvidence(r.headers, name.source).death !== null);

      return {
        lines: [
          ...(clearedFromOutside ? [`hold: ${clearedFromOutside.line}`] : []),
          `hold: targetUnbound=${targetUnbound} targetEmpty=${targetEmpty}`,
          `hold: bindingRestored=${bindingRestored} recoveredOriginalEvent=${recoveredOriginalEvent} noApplicationRepublish=${noApplicationRepublish}`,
        ],
        checks: [
          check(
            'policyStored',
            policyLine(policy),
            stored ? policyLine({ ...stored, applyTo: stored['apply-to'] }) : 'absent',
          ),
          policyOnSource(stats),
          check('targetUnbound', true, targetUnbound),
          check('targetEmpty', true, targetEmpty),
          sourceWhileHeld(stats),
          check('bindingRestored', true, bindingRestored),
          check('recoveredOriginalEvent', true, recoveredOriginalEvent),
          check('targetDeliveries', 1, deliveries.length),
          check('deadLetteredByBroker', true, evidence.deadLetteredByBroker),
          check('noApplicationRepublish', true, noApplicationRepublish),
          sourceAfter(stats),
          check('policyCleared', true, policyCleared),
          check('targetDepthAfter', 0, targetDepthAfter),
        ],
        facts: {
          policy: {
            name: policy.name,
            pattern: policy.pattern,
            applyTo: policy.applyTo,
            definition: policy.definition,
          },
          policyLeftByEarlierRun: earlierPolicy,
          policyClearedFromOutside: clearedFromOutside
            ? { seenAfterRejectMs: Math.round(clearedFromOutside.at - rejectedAt), ...clearedFromOutside.source }
            : null,
          leftInTargetAtStart: leftInTarget,
          sourceWhileHeld: held && {
            ...pick(held.stats),
            heldLetters: heldLetters(held.stats),
            seenAfterRejectMs: Math.round(held.at - rejectedAt),
          },
          statsSamples: watch.samples.length,
          holdMs: Math.round(reboundAt - rejectedAt),
          recoveryAfterRebindMs: recovered ? Math.round(recovered.at - reboundAt) : null,
          recoveryAfterRejectMs: recovered ? Math.round(recovered.at - rejectedAt) : null,
          deathRecord: evidence.death,
          firstDeath: { queue: evidence.firstDeathQueue, reason: evidence.firstDeathReason },
          targetDeliveries: deliveries.length,
          otherLettersInTarget: received.length - deliveries.length,
          sourceAfter: empty && {
            ...pick(empty.stats),
            seenAfterDeliveryMs: stats.deliveredAt === null ? null : Math.round(empty.at - stats.deliveredAt),
          },
          heldAfterDeliveryMs: heldAfterDeliveryMs(stats),
        },
      };
    } finally {
      watch.stop();
    }
  },
});

/** the source as the broker showed it once the policy was gone, and the line that says so */
interface Cleared {
  at: number;
  source: { policy: string | null; messages: number | null };
  line: string;
}

/**
 * the policy cleared from outside the lab, as the source's readings show it: the first reading whose
 * record names another policy or none, then (up to 3 s) one whose counters show the source empty — the
 * held letter deleted with the policy; null when the run ended first. Said at once on stderr and logged.
 */
function outsideClear(
  ctx: LabContext,
  watch: StatsWatch,
  source: string,
  policy: string,
  delivered: () => boolean,
): Promise<Cleared | null> {
  const gone = watch
    .next((q) => q.policy !== policy)
    .then(async (s) => {
      if (!s) return null;
      const empty = await watch.until((q) => q.messages === 0, s.at, 3000);
      const now = empty ?? watch.last() ?? s;
      const shown = now.stats.policy ? `policy ${now.stats.policy}` : 'no policy';
      const line =
        `policy ${policy} was cleared from outside: the broker's record of ${source} names ${shown} now, and its counters show ` +
        (now.stats.messages === 0
          ? `messages=0: the held letter was deleted with the policy, and nothing will reach the target`
          : `messages=${now.stats.messages}`);
      ctx.progress(line);
      ctx.log.emit('policy', {
        policy,
        queue: source,
        now: now.stats.policy ?? 'none',
        messages: now.stats.messages,
        status: 'cleared_from_outside',
      });
      return delivered()
        ? null
        : { at: s.at, source: { policy: now.stats.policy, messages: now.stats.messages }, line };
    });
  gone.catch(() => {});
  return gone;
}

function targetBound(ctx: LabContext, name: ReturnType<typeof names>): Promise<boolean> {
  return ctx.mgmt.hasBinding(name.dlx, name.target, ROUTING_KEY);
}

/** a read begun now and awaited later: a failure is thrown where it is awaited, never unhandled before */
function begun<T>(read: Promise<T>): () => Promise<T> {
  read.catch(() => {});
  return () => read;
}

const pick = (s: QueueStats) => ({ messages: s.messages, ready: s.ready, unacked: s.unacked });
