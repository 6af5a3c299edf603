/**
 * What a class sees at a checkpoint, in one typed shape: `--step` prints it in the terminal
 * (src/engine/checkpoint-text.ts) and the checkpoint's `waiting` event carries it (`LabEvent.view`, and
 * `view` of the event in --json), so a page or a player can draw the same state.
 */

/** one queue of the lab at the checkpoint */
export interface QueueCounts {
  queue: string;
  /** ready to deliver: a passive queue.declare at the pause (exact at that moment); null: the queue is not there */
  ready: number | null;
  /** delivered, not acked yet: the management API's latest sample; null without a sample */
  unacked: number | null;
  /**
   * at-least-once dead letters the source queue still keeps (its target has not confirmed them):
   * the management API's messages − ready − unacked, all three from one sample; null without a sample
   */
  held: number | null;
}

/** one entry of the broker's dead-letter history (x-death), as the message carried it */
export interface DeathAtCheckpoint {
  queue: string;
  reason: string;
  count: number;
}

/** the message a checkpoint is about (a consumer's delivery), as the consumer saw it */
export interface MessageAtCheckpoint {
  /** the AMQP message id */
  id: string;
  /** a name for people (e.g. the order id `order-poison`) */
  label?: string;
  /** the lab's attempt number for this delivery */
  attempt?: number;
  /** the broker's redelivered flag on this delivery */
  redelivered?: boolean;
  /** x-death entries, newest first (empty: never dead-lettered) */
  deaths?: DeathAtCheckpoint[];
  /** x-delivery-count, where the queue type counts deliveries (quorum queues) */
  deliveryCount?: number;
  /** where the message is at this checkpoint, when that is the point (e.g. the retry queue) */
  queue?: string;
}

export interface CheckpointView {
  lab: string;
  checkpoint: string;
  /** 1, 2, … within the lab's run */
  seq: number;
  /** what is about to happen, in one line (the lab's description of the checkpoint), or null */
  description: string | null;
  /** the separate process that reached the checkpoint (a replay gate of consumer-run1 …) */
  process?: string;
  message?: MessageAtCheckpoint;
  /** every queue of the lab's topology, in its order */
  queues: QueueCounts[];
  /** the lab's own fields for this checkpoint (exitCode=137 businessRows=1 …), as logged */
  facts: Record<string, string>;
  /** ISO time the checkpoint was reached */
  at: string;
}

/** where the counts come from, said once under the table and in the docs */
export const COUNTS_BASIS =
  'ready: queue.declare now · unacked, held: management API sample · held = messages - ready - unacked';

/** held letters from one management sample; never negative (ready and messages are sampled together) */
export function heldOf(sample: { messages: number; ready: number; unacked: number }): number {
  return Math.max(0, sample.messages - sample.ready - sample.unacked);
}

/** the fields a checkpoint event already carries for the message, not repeated among the facts */
const MESSAGE_FIELDS = new Set(['process', 'messageId', 'token']);

export const factsOf = (detail: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(detail)
      .filter(([k, v]) => !MESSAGE_FIELDS.has(k) && v !== undefined)
      .map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]),
  );

/** a message description that came over IPC or from a lab: only the known fields, with their types */
export function messageOf(raw: unknown, id?: string): MessageAtCheckpoint | undefined {
  const m = (raw ?? {}) as Record<string, unknown>;
  const messageId = typeof m.id === 'string' ? m.id : id;
  if (!messageId) return undefined;
  const out: MessageAtCheckpoint = { id: messageId };
  if (typeof m.label === 'string') out.label = m.label;
  if (typeof m.attempt === 'number') out.attempt = m.attempt;
  if (typeof m.redelivered === 'boolean') out.redelivered = m.redelivered;
  if (typeof m.deliveryCount === 'number') out.deliveryCount = m.deliveryCount;
  if (typeof m.queue === 'string') out.queue = m.queue;
  if (Array.isArray(m.deaths))
    out.deaths = m.deaths.map((d: Record<string, unknown>) => ({
      queue: String(d.queue),
      reason: String(d.reason),
      count: Number(d.count),
    }));
  return out;
}
