/**
 * hold — seed 000, RetryLab `hold` mode: at-least-once dead lettering keeps a rejected message
 * while its target is unbound, and the broker's own worker delivers it once the target is back
 * (the queues, the route and the policy are in names.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Lab, LabContext } from '../../src/lab.js';
import type { Delivery } from '../../src/broker/broker.js';
import type { QueueStats } from '../../src/broker/management.js';
import { check } from '../../src/report/checks.js';
import { deferred } from '../../src/time.js';
import { ticking } from '../../src/progress.js';
import { BODY, EVENT_ID, RUN_HEADER, heldLetters, policyLine, republishEvidence, statsLine } from './evidence.js';
import { ROUTING_KEY, holdPolicy, names, topology } from './names.js';
import type { HoldOptions } from './options.js';

/** the seed's window in which the unbound target must stay empty */
const WINDOW_MS = 2000;
/**
 * Queue statistics reach the management API through a quorum tick, a collector run and a sample
 * bucket: up to ~10 s late on a broker with the defaults (5 s each), ~1 s with mqlab's advanced.config.
 */
const STATS_TIMEOUT_MS = 15_000;

interface Received {
  at: number;
  messageId: string | undefined;
  body: string;
  run: string;
  headers: Record<string, unknown>;
}

export const lab: Lab<HoldOptions> = {
  topology,

  async run(ctx) {
    if (!ctx.caps.atLeastOnceDeadLettering) return { lines: [], checks: [], skipped: `RabbitMQ ${ctx.caps.version} has no at-least-once dead lettering (3.10+)` };
    const x = names(ctx.names);
    const { broker, mgmt, log } = ctx;
    const { recoverTimeoutMs } = ctx.options;
    const runId = randomUUID();
    let publishes = 0;

    // The policy, applied by the lab. One left by an interrupted run goes first: switching
    // at-least-once off deletes the letters it still holds, which a purge does not (3.10.8).
    const policy = holdPolicy(ctx.names, ctx.caps);
    const earlierPolicy = (await mgmt.policies()).some((p) => p.name === policy.name);
    if (earlierPolicy) {
      ctx.progress(`policy ${policy.name} was left by an earlier run: clearing it first drops the letters that run still held`);
      await mgmt.deletePolicy(policy.name);
    }
    await mgmt.putPolicy(policy);
    const stored = (await mgmt.policies()).find((p) => p.name === policy.name);
    ctx.progress(`applied policy ${policy.name} to ${policy.pattern} (apply-to ${policy.applyTo}${ctx.caps.policyApplyToQuorumQueues ? '' : `: RabbitMQ ${ctx.caps.version} has no quorum_queues`}): ${JSON.stringify(policy.definition)}`);
    log.emit('policy', { policy: policy.name, pattern: policy.pattern, applyTo: policy.applyTo, queue: x.source, status: 'applied' });
    const atStart = await mgmt.queue(x.source);
    if (atStart && heldLetters(atStart) > 0) {
      await statsWait(ctx, `the statistics of ${x.source} to drop the ${heldLetters(atStart)} letter(s) an earlier run left held`, (q) => heldLetters(q) === 0);
    }

    // The target loses its binding (and anything an earlier run left in it), then a push consumer watches it.
    await broker.channel.unbindQueue(x.target, x.dlx, ROUTING_KEY);
    const leftInTarget = (await broker.channel.purgeQueue(x.target)).messageCount;
    const targetUnbound = !(await targetBound(ctx, x));
    const received: Received[] = [];
    const ours = deferred<Received>();
    const target = await broker.consume(
      x.target,
      (d: Delivery) => {
        const r = { at: ctx.now(), messageId: d.messageId, body: d.body, run: String(d.headers[RUN_HEADER] ?? ''), headers: d.headers };
        received.push(r);
        d.ack(); // take every letter, so the target ends empty
        log.emit('target', { messageId: r.messageId, destination: x.target, run: r.run === runId ? 'this' : 'other', status: 'received' });
        if (r.run === runId) ours.resolve(r);
      },
      { prefetch: 10 },
    );

    // Publish, then reject the delivery without requeue: the policy dead-letters it.
    const rejected = deferred<number>();
    const source = await broker.consume(x.source, (d) => {
      d.reject(false);
      log.emit('consumer', { messageId: d.messageId, destination: x.source, status: 'rejected_to_dlx' });
      if (d.headers[RUN_HEADER] === runId) rejected.resolve(ctx.now());
    });
    await broker.sendConfirmed(x.source, BODY, { messageId: EVENT_ID, headers: { [RUN_HEADER]: runId } });
    publishes += 1;
    log.emit('producer', { messageId: EVENT_ID, destination: x.source, status: 'confirmed' });
    const rejectedAt = await ctx.within(Promise.race([rejected.promise, source.failure]), 5000, `${EVENT_ID} on ${x.source}`);
    await source.cancel();

    // The window: 2 s, and until the statistics have shown the letter held in the source.
    ctx.progress(`rejected ${EVENT_ID}; ${x.target} stays unbound for ${WINDOW_MS / 1000} s and until the management statistics show the held letter`);
    // the queue's policy field is sampled like the counts (on a new queue it can lag for seconds): wait for both
    const heldSample = statsWait(ctx, `the statistics of ${x.source} to show the held letter under ${policy.name}`, (q) => heldLetters(q) >= 1 && q.policy === policy.name);
    heldSample.catch(() => {}); // awaited below; an interrupted sleep must not leave it unhandled
    await ctx.sleep(WINDOW_MS);
    const held = await heldSample;
    const heldSeenMs = Math.round(ctx.now() - rejectedAt);
    const targetDepthUnbound = await broker.depth(x.target);
    const targetEmpty = received.length === 0 && targetDepthUnbound === 0;
    log.emit('mgmt', { queue: x.source, messages: held?.messages, ready: held?.ready, unacked: held?.unacked, status: 'held' });
    await ctx.checkpoint('letter-held', { queue: x.source, stats: statsLine(held), target: x.target, targetDepth: targetDepthUnbound });

    // Rebind and wait: nothing is published again; the broker's worker re-routes on its timer.
    await broker.channel.bindQueue(x.target, x.dlx, ROUTING_KEY);
    const reboundAt = ctx.now();
    const bindingRestored = await targetBound(ctx, x);
    ctx.progress(
      `bound ${x.target} again; waiting up to ${recoverTimeoutMs / 1000} s for the broker's dead-letter worker: it re-routes held letters when ` +
        `its confirm-timeout timer fires (dead_letter_worker_publisher_confirm_timeout: 180 s on an untuned broker, 3 s on mqlab's services), not on a rebind`,
    );
    const since = (t: number) => Math.round((ctx.now() - t) / 1000);
    const recovered = await ticking(ctx, () => `still waiting for the dead-letter worker: ${since(rejectedAt)} s since the rejection, ${since(reboundAt)} s since the rebind; the application publishes nothing`, () =>
      ctx.within(Promise.race([ours.promise, target.failure]), recoverTimeoutMs, `the broker's dead-letter worker to deliver ${EVENT_ID} to ${x.target} (raise --recover-timeout)`),
    );
    const evidence = republishEvidence(recovered.headers, x.source);
    const recoveredOriginalEvent = recovered.messageId === EVENT_ID && recovered.body === BODY;
    const noApplicationRepublish = publishes === 1 && evidence.deadLetteredByBroker;
    await ctx.checkpoint('recovered', { messageId: recovered.messageId, afterRebindMs: Math.round(recovered.at - reboundAt) });

    // Clear the policy only once the statistics show no letter held in the source.
    const after = await statsWait(ctx, `the statistics of ${x.source} to show no held letter before the policy is cleared`, (q) => q.messages === 0);
    let policyCleared = false;
    if (after && after.messages === 0) {
      await mgmt.deletePolicy(policy.name);
      policyCleared = !(await mgmt.policies()).some((p) => p.name === policy.name);
      ctx.progress(`no dead letter is held in ${x.source} (${statsLine(after)}): cleared policy ${policy.name}`);
    } else {
      ctx.progress(`kept policy ${policy.name}: ${x.source} shows ${statsLine(after)}; clearing it now would delete held letters`);
    }
    log.emit('policy', { policy: policy.name, status: policyCleared ? 'cleared' : 'kept' });
    await target.cancel();
    const targetDepthAfter = await broker.depth(x.target);

    return {
      lines: [
        `hold: targetUnbound=${targetUnbound} targetEmpty=${targetEmpty}`,
        `hold: bindingRestored=${bindingRestored} recoveredOriginalEvent=${recoveredOriginalEvent} noApplicationRepublish=${noApplicationRepublish}`,
      ],
      checks: [
        check('policyStored', policyLine(policy), stored ? policyLine({ ...stored, applyTo: stored['apply-to'] }) : 'absent'),
        check('policyOnSource', policy.name, held?.policy ?? null),
        check('targetUnbound', true, targetUnbound),
        check('targetEmpty', true, targetEmpty),
        check('sourceWhileHeld', 'messages=1 ready=0 unacked=0', statsLine(held)),
        check('bindingRestored', true, bindingRestored),
        check('recoveredOriginalEvent', true, recoveredOriginalEvent),
        check('applicationPublishes', 1, publishes),
        check('deadLetteredByBroker', true, evidence.deadLetteredByBroker),
        check('noApplicationRepublish', true, noApplicationRepublish),
        check('sourceAfter', 'messages=0 ready=0 unacked=0', statsLine(after)),
        check('policyCleared', true, policyCleared),
        check('targetDepthAfter', 0, targetDepthAfter),
      ],
      facts: {
        policy: { name: policy.name, pattern: policy.pattern, applyTo: policy.applyTo, definition: policy.definition },
        policyLeftByEarlierRun: earlierPolicy,
        leftInTargetAtStart: leftInTarget,
        sourceWhileHeld: held && { ...pick(held), heldLetters: heldLetters(held), seenAfterRejectMs: heldSeenMs },
        holdMs: Math.round(reboundAt - rejectedAt),
        recoveryAfterRebindMs: Math.round(recovered.at - reboundAt),
        recoveryAfterRejectMs: Math.round(recovered.at - rejectedAt),
        deathRecord: evidence.death,
        firstDeath: { queue: evidence.firstDeathQueue, reason: evidence.firstDeathReason },
        targetDeliveries: received.filter((r) => r.run === runId).length,
        otherLettersInTarget: received.filter((r) => r.run !== runId).length,
        sourceAfter: after && pick(after),
      },
    };
  },
};

function targetBound(ctx: LabContext, x: ReturnType<typeof names>): Promise<boolean> {
  return ctx.mgmt.hasBinding(x.dlx, x.target, ROUTING_KEY);
}

/** wait for a sampled statistic of the source queue, saying so every few seconds */
function statsWait(ctx: LabContext, what: string, ok: (q: QueueStats) => boolean): Promise<QueueStats | null> {
  const source = names(ctx.names).source;
  return ticking(ctx, (s) => `waiting for ${what} (sampled every few seconds): ${s} s`, () =>
    ctx.within(ctx.mgmt.queueWhen(source, ok, STATS_TIMEOUT_MS), STATS_TIMEOUT_MS + 5000, what),
  );
}

const pick = (s: QueueStats) => ({ messages: s.messages, ready: s.ready, unacked: s.unacked });
