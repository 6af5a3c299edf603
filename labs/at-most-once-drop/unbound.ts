/**
 * One phase of at-most-once-drop: apply the dead-letter policy with a strategy, unbind the target,
 * publish the letter and reject it without requeue, keep the target unbound for the window until the
 * source's counters show the markers published after it; `rebind` binds the target again (the lab's
 * checkpoint comes between the two). Every phase runs this; only the strategy and overflow differ.
 */
import {
  type LabContext,
  type QueueStats,
  deadLetterPolicy,
  heldLetters,
  statsLine,
  type DeadLetterStrategy,
  deferred,
} from '../../src/kit/index.js';
import { BODY, EVENT_ID, MARKER_ID, PHASE_HEADER, ROUTING_KEY, RUN_HEADER, type DropNames } from './names.js';
import { sourceWhen } from './source-now.js';

type Phase = 'at-most-once' | 'fallback' | 'at-least-once';

export interface PhaseInput {
  phase: Phase;
  strategy: DeadLetterStrategy;
  /** false: the policy leaves overflow at the default drop-head (the fallback phase) */
  rejectPublish?: boolean;
  /** sample the source again once the markers are gone: the letter must still be held there */
  sampleAfterMarkers?: boolean;
  /** with sampleAfterMarkers: what to do while the letter is held and no marker is left, before that sample */
  whileHeld?: () => Promise<void>;
  /** remove the markers with queue.purge, which on 4.3 takes the held letter too (variant purge-markers) */
  purgeMarkers?: boolean;
  runId: string;
  /**
   * markers to publish after the rejection: more ready messages than the source had at any earlier step of the run
   * (2, 3, 4), so that only counters written after the last marker show them (source-now.ts): the policy is read at
   * request time, the counts on the queue's tick, and a reading of an earlier phase must not pass for this one
   */
  markers: number;
  /** --window: the target stays unbound at least this long after the rejection */
  windowMs: number;
  /** leave the target bound (variant keep-binding) */
  keepBinding?: boolean;
}

interface PhaseResult {
  targetUnbound: boolean;
  /** the policy definition of the reading that named this phase's policy (null: no reading did) */
  policy: Record<string, unknown> | null;
  /** the source in the first reading whose counters show the markers published after the rejection (else the last one) */
  source: QueueStats | null;
  /** letters the source keeps for its dead-letter worker in that reading (null: no reading showed the markers) */
  held: number | null;
  /** with sampleAfterMarkers: the source once the markers were taken off (ready 0), and the letters it still holds */
  afterMarkers: QueueStats | null;
  heldAfterMarkers: number | null;
  /** how the markers went: 'get' (basic.get + ack, each) or the purge's message count */
  markersRemoved: string;
  targetDepthUnbound: number;
  rejectedAt: number;
}

interface Rebound {
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
  // The PUT answered once the source's record named the policy and its state machine had the new
  // configuration (rabbit_policy update_matched_objects -> rabbit_quorum_queue policy_changed ->
  // ra:process_command, v3.10.8 and v4.3.5): the first reading shows it. A reading that shows the
  // markers' count already (counters left from an earlier run) is read past first: from here until
  // the last marker the source has fewer ready, so a later reading with the markers is newer than it.
  const applied = (q: QueueStats) => q.policy === policy.name && sameDefinition(q.policyDefinition, policy.definition);
  const markersShown = (q: QueueStats) => applied(q) && q.ready === p.markers && q.unacked === 0;
  const before = await sourceWhen(
    ctx,
    name,
    `${name.source} to show policy ${policy.name} as just applied, and fewer than ${p.markers} ready`,
    (q) => applied(q) && !markersShown(q),
  );
  if (before.first && markersShown(before.first))
    log.emit('mgmt', {
      phase: p.phase,
      queue: name.source,
      ready: before.first.ready,
      status: 'read_past_earlier_counters',
    });

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

  // Markers published after the rejection stay ready in the source. A reading whose counters show all of them
  // was written after the last one (see `before`), when the letter had been rejected (the letter alone was ready
  // for an instant, never beside the markers), so its messages - ready - unacked are the letters held (0: dropped).
  for (let n = 1; n <= p.markers; n++)
    await broker.sendConfirmed(name.source, 'marker', {
      messageId: `${MARKER_ID}-${n}`,
      headers: { [RUN_HEADER]: p.runId, [PHASE_HEADER]: p.phase },
    });
  ctx.progress(
    `${p.phase}: rejected ${EVENT_ID}; ${name.target} stays unbound for ${p.windowMs / 1000} s and until ${name.source} shows the ${p.markers} markers published after it`,
  );
  const sample = before.ok
    ? sourceWhen(ctx, name, `${name.source} to show the ${p.markers} markers`, markersShown)
    : Promise.resolve(before);
  const windowEnd = ctx.sleep(p.windowMs);
  windowEnd.catch(() => {}); // awaited below; an interrupted run must not leave it unhandled
  const shown = await sample;
  const source = shown.reading;
  const held = shown.ok && before.ok && source ? heldLetters(source) : null;
  log.emit('mgmt', {
    phase: p.phase,
    queue: name.source,
    messages: source?.messages,
    ready: source?.ready,
    unacked: source?.unacked,
    held,
    status: 'sampled',
  });
  // The markers go as soon as a reading showed them (the window need not be over: the target stays unbound).
  // With sampleAfterMarkers, the reading with them gone comes a tick after theirs at the earliest, and what the
  // phase does while the letter is held (the max-length probe) fits in between: it ends with no ready message.
  const markersRemoved = await removeMarkers(ctx, name, p);
  if (p.sampleAfterMarkers) await p.whileHeld?.();
  // ready 0 after a reading with all the markers: counters written once the last marker was taken off
  const after =
    p.sampleAfterMarkers && held !== null
      ? await sourceWhen(
          ctx,
          name,
          `${name.source} to show no ready message left`,
          (q) => applied(q) && q.ready === 0 && q.unacked === 0,
        )
      : null;
  const afterMarkers = after?.reading ?? null;
  const heldAfterMarkers = after?.ok && afterMarkers ? heldLetters(afterMarkers) : null;
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
  await windowEnd;
  const targetDepthUnbound = await broker.depth(name.target);
  return {
    targetUnbound,
    policy: before.ok ? (before.reading?.policyDefinition ?? null) : null,
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

/** what a phase's checkpoint shows: the source's counters and the unbound target */
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

function sameDefinition(a: Record<string, unknown> | null, b: Record<string, unknown>): boolean {
  const keys = new Set([...Object.keys(a ?? {}), ...Object.keys(b)]);
  return [...keys].every((k) => String(a?.[k]) === String(b[k]));
}
