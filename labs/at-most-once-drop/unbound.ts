/**
 * One phase of at-most-once-drop: apply the dead-letter policy with a strategy, unbind the target,
 * publish the letter and reject it without requeue, keep the target unbound for the window while
 * the statistics catch up; `rebind` binds the target again (the lab's checkpoint comes between the two).
 * Both phases run this; only the strategy differs.
 */
import type { LabContext } from '../../src/lab.js';
import type { QueueStats } from '../../src/broker/management.js';
import { deadLetterPolicy, heldLetters, statsLine, type DeadLetterStrategy } from '../../src/broker/dead-letter.js';
import { ticking } from '../../src/progress.js';
import { deferred } from '../../src/time.js';
import { BODY, EVENT_ID, MARKER_ID, PHASE_HEADER, ROUTING_KEY, RUN_HEADER, type DropNames } from './names.js';

/**
 * Queue statistics reach the management API through a quorum tick, a collector run and a sample
 * bucket: up to ~10 s late on a broker with the defaults, ~1 s with mqlab's advanced.config.
 */
const STATS_TIMEOUT_MS = 15_000;

export type Phase = 'at-most-once' | 'fallback' | 'at-least-once';

export interface PhaseInput {
  phase: Phase;
  strategy: DeadLetterStrategy;
  /** false: the policy leaves overflow at the default drop-head (the fallback phase) */
  rejectPublish?: boolean;
  /** sample the source again once the markers are gone: the letter must still be held there */
  sampleAfterMarkers?: boolean;
  /** remove the markers with queue.purge, which on 4.3 takes the held letter too (variant purge-markers) */
  purgeMarkers?: boolean;
  runId: string;
  /**
   * markers to publish after the rejection: a number no earlier state of the source had (2, then 3), because the
   * statistics' policy definition is read at request time while the counts are sampled: a stale sample of the
   * previous phase must not pass for this one
   */
  markers: number;
  /** --window: the target stays unbound at least this long after the rejection */
  windowMs: number;
  /** leave the target bound (variant keep-binding) */
  keepBinding?: boolean;
}

export interface PhaseResult {
  targetUnbound: boolean;
  /** the source as the statistics showed it once they counted the marker published after the rejection */
  source: QueueStats | null;
  /** letters the source keeps for its dead-letter worker in that sample */
  held: number | null;
  /** with sampleAfterMarkers: the source once the markers were taken off (ready 0), and the letters it still holds */
  afterMarkers: QueueStats | null;
  heldAfterMarkers: number | null;
  /** how the markers went: 'get' (basic.get + ack, each) or the purge's message count */
  markersRemoved: string;
  targetDepthUnbound: number;
  rejectedAt: number;
}

export interface Rebound {
  bindingRestored: boolean;
  reboundAt: number;
}

export async function rejectWhileUnbound(ctx: LabContext, name: DropNames, p: PhaseInput): Promise<PhaseResult> {
  const { broker, mgmt, log } = ctx;
  const policy = deadLetterPolicy(
    {
      name: name.policy,
      pattern: name.pattern,
      dlx: name.dlx,
      routingKey: ROUTING_KEY,
      strategy: p.strategy,
      rejectPublish: p.rejectPublish,
    },
    ctx.caps,
  );
  await mgmt.putPolicy(policy);
  log.emit('policy', {
    phase: p.phase,
    policy: policy.name,
    queue: name.source,
    strategy: policy.definition['dead-letter-strategy'] ?? 'default',
    overflow: policy.definition.overflow ?? 'default',
    status: 'applied',
  });

  if (!p.keepBinding) await broker.channel.unbindQueue(name.target, name.dlx, ROUTING_KEY);
  const targetUnbound = !(await mgmt.hasBinding(name.dlx, name.target, ROUTING_KEY));
  // the policy's definition reaches the queue's statistics like the counts do: wait for it first
  const applied = (q: QueueStats) => q.policy === policy.name && sameDefinition(q.policyDefinition, policy.definition);
  await statsWait(ctx, name, `the statistics of ${name.source} to show policy ${policy.name} as just applied`, applied);

  const rejected = deferred<number>();
  const consumer = await broker.consume(name.source, (m) => {
    m.reject(false);
    log.emit('consumer', {
      phase: p.phase,
      messageId: m.messageId,
      destination: name.source,
      status: 'rejected_to_dlx',
    });
    if (m.headers[RUN_HEADER] === p.runId && m.headers[PHASE_HEADER] === p.phase) rejected.resolve(ctx.now());
  });
  await broker.sendConfirmed(name.source, BODY, {
    messageId: EVENT_ID,
    headers: { [RUN_HEADER]: p.runId, [PHASE_HEADER]: p.phase },
  });
  log.emit('producer', { phase: p.phase, messageId: EVENT_ID, destination: name.source, status: 'confirmed' });
  const rejectedAt = await ctx.within(
    Promise.race([rejected.promise, consumer.failure]),
    5000,
    `${EVENT_ID} on ${name.source}`,
  );
  await consumer.cancel();

  // Markers published after the rejection stay ready in the source. A statistics sample that shows all of them is
  // more recent than the rejection (the letter alone was ready for an instant, never beside the markers), so its
  // messages - ready - unacked are the letters held (0: dropped). The queue's counts are sampled on the quorum
  // tick; a counter from another source (the channel's deliver_get) can run ahead of them.
  for (let n = 1; n <= p.markers; n++)
    await broker.sendConfirmed(name.source, 'marker', {
      messageId: `${MARKER_ID}-${n}`,
      headers: { [RUN_HEADER]: p.runId, [PHASE_HEADER]: p.phase },
    });
  ctx.progress(
    `${p.phase}: rejected ${EVENT_ID}; ${name.target} stays unbound for ${p.windowMs / 1000} s and until the statistics show the ${p.markers} markers published after it`,
  );
  const sample = statsWait(
    ctx,
    name,
    `the statistics of ${name.source} to show the markers`,
    (q) => applied(q) && q.ready === p.markers && q.unacked === 0,
  );
  sample.catch(() => {}); // awaited below; an interrupted sleep must not leave it unhandled
  await ctx.sleep(p.windowMs);
  const source = await sample;
  const held = source && source.ready === p.markers ? heldLetters(source) : null;
  log.emit('mgmt', {
    phase: p.phase,
    queue: name.source,
    messages: source?.messages,
    ready: source?.ready,
    unacked: source?.unacked,
    held,
    status: 'sampled',
  });
  const markersRemoved = await removeMarkers(ctx, name, p);
  const afterMarkers = p.sampleAfterMarkers
    ? await statsWait(
        ctx,
        name,
        `the statistics of ${name.source} to show the markers gone`,
        (q) => applied(q) && q.ready === 0 && q.unacked === 0,
      )
    : null;
  const heldAfterMarkers = afterMarkers && afterMarkers.ready === 0 ? heldLetters(afterMarkers) : null;
  if (afterMarkers)
    log.emit('mgmt', {
      phase: p.phase,
      queue: name.source,
      messages: afterMarkers.messages,
      ready: afterMarkers.ready,
      unacked: afterMarkers.unacked,
      held: heldAfterMarkers,
      status: 'sampled_after_markers',
    });
  const targetDepthUnbound = await broker.depth(name.target);
  return {
    targetUnbound,
    source,
    held,
    afterMarkers,
    heldAfterMarkers,
    markersRemoved,
    targetDepthUnbound,
    rejectedAt,
  };
}

/**
 * Take the markers off the source one by one (basic.get + ack): they are the only ready messages,
 * and a held letter is never ready, so this leaves it where it is on every line. A queue.purge
 * would not: from 4.3.0 it removes held at-least-once letters too (rabbit_fifo dlx_purge; release
 * notes 4.3.0), and the check heldAfterMarkers would see the letter gone.
 */
async function removeMarkers(ctx: LabContext, name: DropNames, p: PhaseInput): Promise<string> {
  if (p.purgeMarkers) return `purge: ${(await ctx.broker.channel.purgeQueue(name.source)).messageCount}`;
  for (let n = 0; n < p.markers; n++) {
    const m = await ctx.broker.get(name.source);
    if (!m) break;
    m.ack();
  }
  return 'get';
}

/** what a phase's checkpoint shows: the source's statistics and the unbound target */
export const phaseDetail = (name: DropNames, r: PhaseResult) => ({
  queue: name.source,
  stats: statsLine(r.source),
  held: r.held ?? '?',
  target: name.target,
  targetDepth: r.targetDepthUnbound,
});

/** bind the target again (after the phase's checkpoint) and say whether the broker lists the binding */
export async function rebind(ctx: LabContext, name: DropNames, phase: Phase): Promise<Rebound> {
  await ctx.broker.channel.bindQueue(name.target, name.dlx, ROUTING_KEY);
  const reboundAt = ctx.now();
  const bindingRestored = await ctx.mgmt.hasBinding(name.dlx, name.target, ROUTING_KEY);
  ctx.log.emit('binding', {
    phase,
    exchange: name.dlx,
    queue: name.target,
    status: bindingRestored ? 'restored' : 'missing',
  });
  return { bindingRestored, reboundAt };
}

/** wait for a sampled statistic of the source queue, saying so every few seconds; the last sample when time is up */
export function statsWait(
  ctx: LabContext,
  name: DropNames,
  what: string,
  ok: (q: QueueStats) => boolean,
): Promise<QueueStats | null> {
  return ticking(
    ctx,
    (s) => `waiting for ${what} (sampled every few seconds): ${s} s`,
    () => ctx.within(ctx.mgmt.queueWhen(name.source, ok, STATS_TIMEOUT_MS), STATS_TIMEOUT_MS + 5000, what),
  );
}

function sameDefinition(a: Record<string, unknown> | null, b: Record<string, unknown>): boolean {
  const keys = new Set([...Object.keys(a ?? {}), ...Object.keys(b)]);
  return [...keys].every((k) => String(a?.[k]) === String(b[k]));
}
