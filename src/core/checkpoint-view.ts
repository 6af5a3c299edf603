/**
 * What a class sees at a checkpoint, in one typed shape: `--step` prints it in the terminal
 * (src/engine/checkpoint-text.ts) and the checkpoint's `waiting` event carries it (`LabEvent.view`, and
 * `view` of the event in --json), so a page or a player can draw the same state.
 */

/** one queue of the lab at the checkpoint: all three counts from one answer of the broker (src/broker/broker-state.ts) */
export interface QueueCounts {
  queue: string;
  /** ready to deliver; null: the queue is not there, or the broker did not answer */
  ready: number | null;
  /** delivered, not acked yet; null: not read (a `ready-only` reading), or no answer */
  unacked: number | null;
  /**
   * at-least-once dead letters the source queue still keeps (its target has not confirmed them):
   * messages − ready − unacked of the same answer; null: not read, or no answer
   */
  held: number | null;
}

/** a binding from an exchange to a queue, as the broker lists it */
export interface BindingAt {
  exchange: string;
  queue: string;
  key: string;
}

/** the policy in force on a queue, from its record: name null when none applies */
export interface PolicyAt {
  name: string | null;
  definition: Record<string, unknown>;
}

/**
 * how the counts were read: `settled` readings a quorum tick apart until two agreed (nothing moved
 * between them); `changing` they never agreed within the bound (the last one is shown); `once` one
 * reading while the run went on; `ready-only` ready counted now, unacked and held not read
 */
export type ReadingKind = 'settled' | 'changing' | 'once' | 'ready-only';

/** what the broker itself said at the checkpoint, beside the counts */
export interface BrokerAtCheckpoint {
  /** ISO time of the reading shown */
  at: string;
  reading: ReadingKind;
  /** the bindings from the lab's exchanges to queues; null: the broker did not answer */
  bindings: BindingAt[] | null;
  /** per queue of the lab (in its order): the policy in force; null where the broker did not answer */
  policies: (PolicyAt | null)[];
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
  /**
   * the queue the lab saw it in when the pause's reading no longer found it there: a timed hop (a
   * TTL) shorter than the way from the lab's sighting to the reading, on a busy machine
   */
  leftQueue?: string;
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
  /** the bindings and policies the broker listed with the counts, and how they were read */
  broker?: BrokerAtCheckpoint;
  /** the lab's own fields for this checkpoint (exitCode=137 businessRows=1 …), as logged */
  facts: Record<string, string>;
  /** ISO time the checkpoint was reached */
  at: string;
}

/** where a checkpoint's counts come from, in words a projector carries (under the table, in the docs) */
export function countsBasis(reading: ReadingKind | undefined): string {
  switch (reading) {
    case 'settled':
      return 'one reading of the broker at the pause, read again a second later until nothing had moved · held = messages - ready - unacked';
    case 'changing':
      return 'the broker’s last reading: the counts were still changing while paused (a timer or a consumer moves messages) · held = messages - ready - unacked';
    case 'once':
      return 'one reading of the broker at the pause, while the run went on (? where a queue’s counters had not caught up: its ready is counted now) · held = messages - ready - unacked';
    case 'ready-only':
      return 'ready only, counted now: the message is on a timed hop and would leave before the other counts could show it';
    default:
      return 'ready, unacked and held from one reading of the broker · held = messages - ready - unacked';
  }
}

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
