/**
 * The source demos' replay gate (`[replay-gate]` lines, docs/labs/consumer-crash.md), shared by every
 * lab whose consumer runs in its own process. A gate is a named checkpoint in the consumer: it prints `status=waiting`,
 * hands the checkpoint to the parent over IPC — where it is the same ctx.checkpoint that --step
 * pauses on — then holds --gate-ms, and prints `status=released`.
 *
 * The line has the source demos' exact shape (no level/service/lab fields); the token is
 * <run id>-<consumer index>-<checkpoint>-<messageId>-<sequence within the process>.
 */
import { randomBytes } from 'node:crypto';
import { eventFields, formatEvent } from '../../log/events.js';
import { sleep } from '../../core/time.js';
import { holdCounter } from './held-deadline.js';
import type { MessageAtCheckpoint } from '../../core/checkpoint-view.js';

type GateStatus = 'waiting' | 'released';

export const gateToken = (run: string, checkpoint: string, messageId: string, seq: number, consumer = 1) =>
  `${run}-${consumer}-${checkpoint}-${messageId}-${seq}`;

export function gateLine(checkpoint: string, messageId: string, token: string, status: GateStatus): string {
  return formatEvent({ source: 'replay-gate', fields: eventFields({}, { checkpoint, messageId, token, status }) });
}

/** what a child sends its parent at a gate, and what the parent answers when the checkpoint is released */
interface GateMessage {
  kind: 'replay-gate';
  checkpoint: string;
  messageId: string;
  token: string;
  /** what the parent shows of the message at this checkpoint (attempt, redelivered, x-death …) */
  message?: Omit<MessageAtCheckpoint, 'id'>;
}

export const isGateMessage = (m: unknown): m is GateMessage => (m as GateMessage)?.kind === 'replay-gate';

/** the child side: `gate(checkpoint, messageId, message?)`; lines go to `write` (stdout by default) */
export function replayGate(opts: { holdMs: number; write?: (line: string) => void }) {
  const run = randomBytes(6).toString('hex');
  const write = opts.write ?? ((line: string) => process.stdout.write(line + '\n'));
  let seq = 0;
  return async function gate(checkpoint: string, messageId: string, message?: GateMessage['message']): Promise<void> {
    const token = gateToken(run, checkpoint, messageId, ++seq);
    write(gateLine(checkpoint, messageId, token, 'waiting'));
    await paused(async () => {
      await parentReleases({ kind: 'replay-gate', checkpoint, messageId, token, ...(message ? { message } : {}) });
      if (opts.holdMs > 0) await sleep(opts.holdMs);
    });
    write(gateLine(checkpoint, messageId, token, 'released'));
  };
}

/**
 * A checkpoint of the parent reached from a child that is not a replay gate (no
 * `[replay-gate]` line, no --gate hold): e.g. a pause while a message waits in a retry queue.
 */
export async function childCheckpoint(
  checkpoint: string,
  messageId: string,
  message?: GateMessage['message'],
): Promise<void> {
  const token = `${checkpoint}-${messageId}-${randomBytes(3).toString('hex')}`;
  await paused(() =>
    parentReleases({ kind: 'replay-gate', checkpoint, messageId, token, ...(message ? { message } : {}) }),
  );
}

let lastPauseEnd = 0;
const held = holdCounter();

/**
 * This process's pauses at checkpoints: one is under way, when the last ended (performance.now()),
 * and their total (ms). A process that gives up when idle counts a pause (a teacher talking at
 * --step) as activity; one with a bound on its work leaves them out of it (heldDeadline).
 */
export const pauses = { active: () => held.active(), endedAt: () => lastPauseEnd, totalMs: () => held.totalMs() };

async function paused(wait: () => Promise<void>): Promise<void> {
  try {
    await held.hold(wait());
  } finally {
    lastPauseEnd = performance.now();
  }
}

/** without an IPC channel (the script run by hand) the gate does not wait for anyone */
function parentReleases(m: GateMessage): Promise<void> {
  const send = process.send?.bind(process);
  if (!send) return Promise.resolve();
  return new Promise((resolve) => {
    const onMessage = (reply: unknown) => {
      if (!isGateMessage(reply) || reply.token !== m.token) return;
      process.off('message', onMessage); // no listener left: the channel no longer keeps the process alive
      resolve();
    };
    process.on('message', onMessage);
    send(m);
  });
}
