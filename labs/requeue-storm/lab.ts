/**
 * requeue-storm (docs/labs/requeue-storm.md): nack(requeue=true) is an immediate redelivery, not a retry.
 *
 * The queues and routes are drawn in names.ts.
 * Same window, same failing message, same healthy stream (50/s), consumer in this process.
 * Mode (b) runs first: its failing message comes back from the delay queue (≤ one TTL) while
 * mode (a) runs, and is taken off then, so the run costs the two windows and no extra TTL.
 */
import { check, checkAtLeast, checkAtMost, gapsMs, labCode } from '../../src/kit/index.js';
import { meta } from './meta.js';
import { runMode, type ModeRun, type Removal } from './mode.js';
import { latencySummary, percentile, perSecond, ratio, round1 } from './measure.js';
import { DELAY_TTL_MS, DELIVERY_LIMIT, HEALTHY_PER_SEC, names, topology } from './names.js';

const MAX_REDELIVERIES = 50_000;
/**
 * The claims, as times between two deliveries of the failing message (this process's clock, one
 * consumer): a requeued message is back "at once" — half the gaps shorter than half the delay TTL,
 * however slow a busy machine makes the consumer — while a TTL-delayed one is never back before
 * the TTL (the broker holds it; it cannot expire early).
 */
const REQUEUE_GAP_P50_MAX_MS = DELAY_TTL_MS / 2;

export const lab = labCode(meta, {
  topology,

  async run(ctx) {
    const name = names(ctx.names);
    const { windowMs, prefetch } = ctx.options;
    const common = { windowMs, prefetch, healthyPerSec: HEALTHY_PER_SEC, maxRedeliveries: MAX_REDELIVERIES };

    ctx.progress(`mode delayed: reject → ${name.delay} (TTL ${DELAY_TTL_MS} ms) → back, for ${windowMs} ms`);
    const delayed = await runMode(ctx, { ...common, mode: 'delayed', queue: name.work, delayQueue: name.delay });
    let requeue: ModeRun | undefined;
    let delayedRemoval: Removal, requeueRemoval: Removal;
    try {
      await ctx.checkpoint('delayed-window-closed', {
        failingDeliveries: delayed.failingDeliveries,
        cpuMs: Math.round(delayed.cpuMs),
      });
      ctx.progress(`mode requeue: nack(requeue=true) on ${name.requeue}, for ${windowMs} ms`);
      requeue = await runMode(ctx, { ...common, mode: 'requeue', queue: name.requeue });
      requeueRemoval = await ctx.within(
        requeue.removed,
        5000,
        `the failing message on ${name.requeue} after the window`,
      );
      delayedRemoval = await ctx.within(
        delayed.removed,
        DELAY_TTL_MS + 5000,
        `the failing message back from ${name.delay}`,
      );
    } finally {
      await requeue?.stop();
      await delayed.stop();
    }

    const depths = await Promise.all([name.requeue, name.work, name.delay].map((name) => ctx.broker.depth(name)));
    return result({ prefetch, requeue: requeue, delayed, rr: requeueRemoval, dr: delayedRemoval, depths, name });
  },
});

/** one mode's facts in the report (its tests read them) */
export type ModeFacts = ReturnType<typeof modeFacts>;

function modeFacts(m: ModeRun, removal: Removal) {
  const redeliveries = Math.max(0, m.failingDeliveries - 1);
  // the in-window deliveries and the one that took the failing message off after the window
  const gaps = gapsMs([...m.failingAtMs, removal.atMs]);
  return {
    windowMs: m.windowMs,
    activeMs: Math.round(m.activeMs),
    failingDeliveries: m.failingDeliveries,
    redeliveries,
    redeliveriesPerSec: perSecond(redeliveries, m.activeMs),
    redeliveredFlags: m.redeliveredFlags,
    capped: m.capped,
    failingGapP50Ms: nullable(round1, percentile(gaps, 50)),
    failingGapMinMs: nullable(round1, gaps.length ? Math.min(...gaps) : null),
    // the storm's thousands are summarised above; the delayed mode's few are listed
    ...(m.mode === 'delayed' ? { failingGapsMs: gaps.map(round1) } : {}),
    removal,
    cpuMs: Math.round(m.cpuMs),
    cpuPercentOfWindow: round1((m.cpuMs / m.activeMs) * 100),
    healthy: {
      published: m.healthyPublished,
      processed: m.healthyProcessed,
      processedInWindow: m.healthyProcessedInWindow,
      ...latencySummary(m.healthyLatenciesMs),
    },
  };
}

const nullable = <T, R>(f: (v: T) => R, v: T | null): R | null => (v === null ? null : f(v));

interface Observed {
  prefetch: number;
  requeue: ModeRun;
  delayed: ModeRun;
  rr: Removal;
  dr: Removal;
  depths: number[];
  name: ReturnType<typeof names>;
}

function result({ prefetch, requeue, delayed, rr, dr, depths, name }: Observed) {
  const a = modeFacts(requeue, rr);
  const b = modeFacts(delayed, dr);
  const r = ratio(a.redeliveriesPerSec, b.redeliveriesPerSec);

  const line =
    `requeue-storm: requeueRedeliveriesPerSec=${a.redeliveriesPerSec} delayedRedeliveriesPerSec=${b.redeliveriesPerSec} ratio=${r}` +
    ` healthyProcessedRequeue=${a.healthy.processed}/${a.healthy.published} healthyProcessedDelayed=${b.healthy.processed}/${b.healthy.published}` +
    ` cpuMsRequeue=${a.cpuMs} cpuMsDelayed=${b.cpuMs}` +
    ` healthyP50MsRequeue=${a.healthy.p50Ms} healthyP50MsDelayed=${b.healthy.p50Ms}` +
    ` healthyP95MsRequeue=${a.healthy.p95Ms} healthyP95MsDelayed=${b.healthy.p95Ms}`;
  return {
    lines: [line],
    checks: [
      checkAtMost('requeueGapP50Ms', REQUEUE_GAP_P50_MAX_MS, a.failingGapP50Ms),
      checkAtLeast('delayedGapMinMs', DELAY_TTL_MS, b.failingGapMinMs),
      check('healthyProcessedRequeue', a.healthy.published, a.healthy.processed),
      check('healthyProcessedDelayed', b.healthy.published, b.healthy.processed),
      check(
        'queueDepthAfter',
        0,
        depths.reduce((s, d) => s + d, 0),
      ),
    ],
    facts: {
      consumer:
        'in-process (one push consumer per mode on its own channel; CPU is process.cpuUsage over the window, healthy publisher included in both modes)',
      prefetch,
      delayTtlMs: DELAY_TTL_MS,
      healthyPerSec: HEALTHY_PER_SEC,
      maxRedeliveries: MAX_REDELIVERIES,
      deliveryLimit: DELIVERY_LIMIT,
      ratio: r,
      requeue: { queue: name.requeue, ...a },
      delayed: { queue: name.work, delayQueue: name.delay, ...b },
      queueDepthAfter: { [name.requeue]: depths[0], [name.work]: depths[1], [name.delay]: depths[2] },
    },
  };
}
