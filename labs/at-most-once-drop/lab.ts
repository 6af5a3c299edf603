/**
 * at-most-once-drop — the default dead-letter path and at-least-once handover (the source is quoted
 * in docs/labs/at-most-once-drop.md): the default dead-letter strategy keeps nothing when the target
 * is missing; at-least-once holds the same letter and delivers it later.
 *
 *   policy me12-drop on ^me12[.]retry[.]drop$: dead-letter-exchange, routing key failed,
 *   max-length 100 — phase 1 without dead-letter-strategy (at-most-once), overflow reject-publish;
 *   phase 2 ("the silent fallback") dead-letter-strategy=at-least-once without overflow: the broker
 *   falls back to at-most-once and only its own log says so; phase 3 at-least-once with
 *   overflow reject-publish: the letter is held, and still held once the markers are taken off
 *
 *   dropped-event ──▶ me12.retry.drop ── reject(requeue=false) ──▶ me12.retry.drop.dlx (direct)
 *                                                                        │ failed (unbound, then restored)
 *                                                                        ▼
 *                                                                 me12.retry.drop.target
 */
import { randomUUID } from 'node:crypto';
import {
  type LabContext,
  check,
  summaryLine,
  statsLine,
  strategyInEffect,
  deadLetterHistory,
  ticking,
  deferred,
  LabError,
  POLICY_MAX_LENGTH,
  ownBrokerLog,
  text,
  labCode,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { BODY, EVENT_ID, PHASE_HEADER, RUN_HEADER, names, topology, type DropNames } from './names.js';
import { phaseDetail, rebind, rejectWhileUnbound, type PhaseInput } from './unbound.js';
import { sourceWhen } from './source-now.js';
import { fallbackWarning } from './fallback-log.js';
import { publishUntilRefused, type Refusal } from './max-length.js';

/** what sets the three phases apart (the rest of each phase's input is the run's) */
export type PhaseSpec = Pick<
  PhaseInput,
  'phase' | 'strategy' | 'rejectPublish' | 'markers' | 'sampleAfterMarkers' | 'purgeMarkers' | 'keepBinding'
>;

/** the three phases, as data a broken variant may change (variants.ts, TEST ONLY) */
export interface DropPhases {
  drop: PhaseSpec;
  fallback: PhaseSpec;
  hold: PhaseSpec;
}

/**
 * The three phases: the default strategy drops the letter (the target is unbound for each phase);
 * at-least-once without overflow reject-publish falls back to it; with reject-publish the letter is
 * held, and stays held once the markers published after it are taken off (basic.get, not a purge).
 * `markers`: more ready messages than any earlier step of the run left in the source (a reading of an earlier
 * phase must not pass for this one: unbound.ts).
 */
const PHASES: DropPhases = {
  drop: { phase: 'at-most-once', strategy: 'default', markers: 2 },
  fallback: { phase: 'fallback', strategy: 'at-least-once', rejectPublish: false, markers: 3 },
  hold: { phase: 'at-least-once', strategy: 'at-least-once', markers: 4, sampleAfterMarkers: true },
};

interface Arrival {
  at: number;
  phase: string;
  messageId: string | undefined;
  body: string;
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
    const { broker, log } = ctx;
    const recoverMs = ctx.options.recoverTimeoutMs;
    const runId = randomUUID();
    // the phases, as taught
    const phases = ctx.steps(PHASES);
    await clearEarlierPolicy(ctx, name);

    // The target is watched for the whole run: every letter of this run that arrives is recorded with its phase.
    await broker.channel.purgeQueue(name.target);
    const arrivals: Arrival[] = [];
    const held = deferred<Arrival>();
    const target = await broker.consume(
      name.target,
      (m) => {
        m.ack();
        if (m.headers[RUN_HEADER] !== runId) return;
        const a = {
          at: ctx.now(),
          phase: String(m.headers[PHASE_HEADER]),
          messageId: m.messageId,
          body: m.body,
          headers: m.headers,
        };
        arrivals.push(a);
        log.emit('target', { phase: a.phase, messageId: a.messageId, destination: name.target, status: 'received' });
        if (a.phase === 'at-least-once') held.resolve(a);
      },
      { prefetch: 10 },
    );

    // Phase 1: the default strategy. The broker dead-letters into an exchange with no binding: gone.
    const drop = await rejectWhileUnbound(ctx, name, {
      ...phases.drop,
      runId,
      windowMs: ctx.options.windowMs,
    });
    await ctx.checkpoint('dropped', phaseDetail(name, drop));
    const dropRebound = await rebind(ctx, name, 'at-most-once');

    // Phase 2: at-least-once asked for, overflow left at drop-head: the broker falls back to
    // at-most-once. The client sees nothing; the broker's log (on mqlab's own services) says so.
    const brokerLog = ownBrokerLog(ctx.config);
    const fallback = await rejectWhileUnbound(ctx, name, {
      ...phases.fallback,
      runId,
      windowMs: ctx.options.windowMs,
    });
    await ctx.checkpoint('fell-back', phaseDetail(name, fallback));
    const fallbackRebound = await rebind(ctx, name, 'fallback');

    // Phase 3: the same letter under at-least-once with reject-publish. Held in the source, delivered after the rebind.
    let refusal: Refusal = { accepted: null, removed: 0 };
    const hold = await rejectWhileUnbound(ctx, name, {
      ...phases.hold,
      runId,
      windowMs: ctx.options.windowMs,
      // The held letter counts toward max-length: the source refuses publishes one sooner.
      whileHeld: async () => void (refusal = await publishUntilRefused(ctx, name, runId)),
    });
    ctx.progress(
      `at-least-once: ${name.source} confirmed ${refusal.accepted ?? `more than ${POLICY_MAX_LENGTH}`} publishes and then refused one (max-length ${POLICY_MAX_LENGTH}, ${hold.heldAfterMarkers ?? '?'} letter held); took them off again`,
    );
    await ctx.checkpoint('letter-held', phaseDetail(name, hold));
    const holdRebound = await rebind(ctx, name, 'at-least-once');
    ctx.progress(
      `bound ${name.target} again; waiting up to ${recoverMs / 1000} s for the broker's dead-letter worker (its timer: 180 s on an untuned broker, 1 s on mqlab's services)`,
    );
    const recovered = await ticking(
      ctx,
      (s) => `still waiting for the dead-letter worker: ${s} s since the rebind; the application publishes nothing`,
      () =>
        ctx
          .within(Promise.race([held.promise, target.failure]), recoverMs, `the held letter in ${name.target}`)
          .catch((e) => {
            if (e instanceof LabError) return null; // reported by heldLetterDelivered
            throw e;
          }),
    );
    await ctx.checkpoint('recovered', {
      messageId: recovered?.messageId ?? 'none',
      afterRebindMs: recovered ? Math.round(recovered.at - holdRebound.reboundAt) : 'none',
    });
    // Two waits at once: the broker's log (read after phase 3, not at once: the node's file handler
    // buffers its writes, LOG_FLUSH_MS), and the policy's clearing once no letter is held.
    const [warning, policyCleared] = await Promise.all([
      typeof brokerLog === 'string'
        ? null
        : loggedBy(ctx, () => fallbackWarning(brokerLog.since(), name.source), fallbackRebound.reboundAt),
      clearPolicyWhenEmpty(ctx, name, hold.heldAfterMarkers === 1 && recovered !== null),
    ]);
    if (typeof brokerLog === 'string') ctx.progress(`fallback: the broker's warning is not read here: ${brokerLog}`);
    else
      ctx.progress(
        `fallback: ${warning ? `the broker logged: ${warning}` : `no fallback warning for ${name.source} in ${brokerLog.file}`}`,
      );
    const death = recovered
      ? deadLetterHistory(recovered.headers).find((e) => e.queue === name.source && e.reason === 'rejected')
      : undefined;
    const heldLetterDelivered =
      !!recovered && recovered.messageId === EVENT_ID && recovered.body === BODY && death?.count === 1;

    // Everything that arrived from phases 1 and 2, from their rebind until now: longer than the worker needed in phase 3.
    const droppedArrivals = arrivals.filter((a) => a.phase === 'at-most-once').length;
    const fallbackArrivals = arrivals.filter((a) => a.phase === 'fallback').length;
    const dropWatchMs = Math.round(ctx.now() - dropRebound.reboundAt);
    const fallbackWatchMs = Math.round(ctx.now() - fallbackRebound.reboundAt);
    await target.cancel();

    const summary = {
      dropStrategy: strategyOf(drop.policy),
      targetUnbound: drop.targetUnbound,
      heldAfterReject: drop.held,
      droppedArrivals,
      fallbackHeld: fallback.held,
      fallbackArrivals,
      holdStrategy: strategyOf(hold.policy),
      heldWhileUnbound: hold.held,
      heldAfterMarkers: hold.heldAfterMarkers,
      heldLetterDelivered,
    };
    return {
      lines: [summaryLine(ctx.lab, summary)],
      checks: [
        check('dropStrategy', 'at-most-once', summary.dropStrategy),
        check('targetUnbound', true, drop.targetUnbound),
        check('heldAfterReject', 0, drop.held),
        check('droppedArrivals', 0, droppedArrivals),
        check(
          'fallbackPolicy',
          'dead-letter-strategy=at-least-once overflow=drop-head',
          fallbackPolicyLine(fallback.policy),
        ),
        check('fallbackHeld', 0, fallback.held),
        check('fallbackArrivals', 0, fallbackArrivals),
        // only where mqlab reads the node's log (its chroot and system backends)
        ...(typeof brokerLog === 'string' ? [] : [check('fallbackWarningLogged', true, warning !== null)]),
        check('holdStrategy', 'at-least-once', summary.holdStrategy),
        check('heldWhileUnbound', 1, hold.held),
        check('heldAfterMarkers', 1, hold.heldAfterMarkers),
        // reject-publish counts ready + held: beside the held letter, the 101st publish is refused (max-length.ts)
        check('acceptedWhileHeld', POLICY_MAX_LENGTH, refusal.accepted),
        check('heldLetterDelivered', true, heldLetterDelivered),
      ],
      facts: {
        policy: name.policy,
        sourceAfterReject: statsLine(drop.source),
        sourceFallback: statsLine(fallback.source),
        fallbackWarning: warning ?? (typeof brokerLog === 'string' ? `not read: ${brokerLog}` : null),
        fallbackWatchMs,
        sourceWhileHeld: statsLine(hold.source),
        sourceAfterMarkers: statsLine(hold.afterMarkers),
        markersRemoved: hold.markersRemoved,
        publishesAcceptedWhileHeld: refusal.accepted,
        fillersRemoved: refusal.removed,
        dropTargetDepthUnbound: drop.targetDepthUnbound,
        holdTargetUnbound: hold.targetUnbound,
        dropWatchMs,
        recoveryAfterRebindMs: recovered ? Math.round(recovered.at - holdRebound.reboundAt) : null,
        deathRecord: death ?? null,
        arrivals: arrivals.map((a) => ({
          phase: a.phase,
          messageId: a.messageId,
          atMs: Math.round(a.at - drop.rejectedAt),
        })),
        policyCleared,
      },
    };
  },
});

/** the strategy a phase's policy gives the source, as the reading showed it (null: no reading named the policy) */
function strategyOf(def: Record<string, unknown> | null): string | null {
  return def ? strategyInEffect(def) : null;
}

/** what the fallback phase's policy asks for, as the reading showed it: the overflow it leaves at drop-head included */
function fallbackPolicyLine(def: Record<string, unknown> | null): string | null {
  return def ? `dead-letter-strategy=${strategyInEffect(def)} overflow=${text(def.overflow, 'drop-head')}` : null;
}

/** a policy left by an interrupted run goes first: switching at-least-once off deletes the letters it still holds */
async function clearEarlierPolicy(ctx: LabContext, name: DropNames) {
  if ((await ctx.mgmt.policy(name.policy)) === null) return;
  ctx.progress(
    `policy ${name.policy} was left by an earlier run: clearing it first drops the letters that run still held`,
  );
  await ctx.mgmt.deletePolicy(name.policy);
}

/**
 * Clear the policy once no letter is held in the source: clearing it switches at-least-once off, which deletes
 * the letters still held. `onlyHeldDelivered`: phase 3's reading with the markers off showed one letter held,
 * and phase 3's letter, held at that reading for certain (the target stayed unbound until after it), reached
 * the target: it was that one. The lab rejects nothing after that reading, so no other letter can be held: the
 * policy goes at once
 * (should the worker's settle of that letter still be on its way, the copy the change deletes is one the target
 * already has). Otherwise it goes once the source's counters show it empty, read after the phase-3 readings, so
 * a count of 0 was written after the rejection.
 */
async function clearPolicyWhenEmpty(ctx: LabContext, name: DropNames, onlyHeldDelivered: boolean): Promise<boolean> {
  if (onlyHeldDelivered) {
    await ctx.mgmt.deletePolicy(name.policy);
    ctx.log.emit('policy', { policy: name.policy, status: 'cleared', held: 'delivered' });
    return true;
  }
  const { reading, ok } = await sourceWhen(
    ctx,
    name,
    `${name.source} to show no held letter before the policy is cleared`,
    (q) => q.messages === 0,
  );
  if (!ok) {
    ctx.progress(
      `kept policy ${name.policy}: ${name.source} shows ${statsLine(reading)}; clearing it now would delete held letters`,
    );
    return false;
  }
  await ctx.mgmt.deletePolicy(name.policy);
  ctx.log.emit('policy', { policy: name.policy, status: 'cleared' });
  return true;
}

/**
 * The node's log handler writes through a buffer: rabbit_logger_std_h opens its file with Erlang's
 * delayed_write (read in v3.10.8 and v4.3.5: fix_modes/1), which holds up to 64 KB for up to 2 s, and
 * flushes sooner only when the logger sees a pause between events. On a busy node (CI's suites beside
 * each other) the warning reached the file after the lab had read it at once. So a line the broker
 * logged in a phase is in the file by 2 s after that phase ended, plus a margin for a busy scheduler.
 */
const LOG_FLUSH_MS = 2_000 + 1_000;

/** what `read` finds in the log, read again until it finds it or LOG_FLUSH_MS after `phaseEndedAt` */
async function loggedBy<T>(ctx: LabContext, read: () => T | null, phaseEndedAt: number): Promise<T | null> {
  for (;;) {
    const found = read();
    if (found !== null || ctx.now() >= phaseEndedAt + LOG_FLUSH_MS) return found;
    await ctx.sleep(100);
  }
}
