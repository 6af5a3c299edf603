/**
 * The retry-dlq consumer, run as its own process by the lab (runChild). It prints key=value events
 * on stdout and exits 0 once it has settled --expect distinct messages for good (committed,
 * duplicate_skipped or moved to the DLQ) — no fixed sleep; 1 on a failure or after --timeout-ms.
 *
 *   attempt = 1 + x-death(orders.work, rejected).count
 *   business tx commits → ack | business failure, attempt < 3 → reject(requeue=false) → orders.retry
 *   business failure, attempt 3 → confirmed copy to orders.dlq → ack
 *
 * Replay gates (src/kit/gates/replay-gate.ts): after-delivery, then before-ack | before-retry | before-dlq; each is a
 * checkpoint of the parent (--step) and holds --gate-ms. After a retry's reject,
 * the lab's own checkpoint in-retry (no `[replay-gate]` line) pauses once the message is seen in the retry queue.
 */
import { parseArgs } from 'node:util';
import type { Sql } from 'postgres';
import { childRuntime } from '../../src/kit/child/runtime.js';
import {
  type Delivery,
  deferred,
  settledOrIdle,
  sleep,
  childCheckpoint,
  pauses,
  replayGate,
  deadLetterHistory,
  text,
} from '../../src/kit/index.js';
import { attemptOf, deathSummary, dlqHeaders } from './attempt.js';
import { fieldsOfDelivery, SERVICE_FIELDS } from './orders.js';
import { MAX_ATTEMPTS, type RetryDlqNames } from './names.js';
import type { ConsumerSteps } from './consumer-steps.js';
import type { Fault } from './meta.js';

const CONSUMER = 'consumer-1';
const { values } = parseArgs({
  options: {
    expect: { type: 'string' },
    'idle-ms': { type: 'string', default: '15000' },
    'gate-ms': { type: 'string', default: '0' },
  },
});
const expected = Number(values.expect);
const idleMs = Number(values['idle-ms']);
if (!Number.isInteger(expected) || expected < 1 || !(idleMs > 0)) {
  process.stderr.write('usage: consumer.js --expect <messages> [--idle-ms <ms>] [--gate-ms <ms>]\n');
  process.exit(2);
}

const replay = replayGate({ holdMs: Number(values['gate-ms']) || 0 });
/** a gate; the idle clock starts again when it is released (a --step pause longer than --idle-ms ended the consumer) */
const gate = async (...args: Parameters<typeof replay>) => {
  await replay(...args);
  lastDeliveryAt = performance.now();
};
const rt = await childRuntime<RetryDlqNames, Fault>();
const name = rt.names;
const settled = new Set<string>();
const allSettled = deferred();
let received = 0;
let lastDeliveryAt = performance.now();
const clock = { now: () => performance.now(), sleep: (ms: number) => sleep(ms) };
// the consumer's steps, as taught
const steps = await rt.steps<ConsumerSteps>(
  {
    attempt: (n) => n,
    writeRow: (_order, insert) => insert(),
    toDlq: async (send) => {
      await send();
      return 'poison_to_dlq';
    },
  },
  async () => (await import('./variants.js')).consumer,
);

/** idempotent by message id: the processed_messages row and the business row commit together */
async function commitOrder(
  db: Sql,
  messageId: string,
  body: string,
): Promise<'business_committed' | 'duplicate_skipped'> {
  const order = JSON.parse(body) as { orderId: string; quantity: number };
  return db.begin(async (tx) => {
    const fresh =
      await tx`INSERT INTO ${tx(name.processed)} (message_id) VALUES (${messageId}) ON CONFLICT DO NOTHING RETURNING message_id`;
    if (fresh.length === 0) return 'duplicate_skipped' as const;
    await steps.writeRow(
      order,
      () =>
        tx`INSERT INTO ${tx(name.orders)} (order_id, message_id, quantity) VALUES (${order.orderId}, ${messageId}, ${order.quantity})`,
    );
    return 'business_committed' as const;
  });
}

/** a failure retrying cannot fix is the message's fault (bad data); anything else is not */
function businessFailure(err: unknown): string | null {
  if (err instanceof SyntaxError) return 'unparseable_body';
  const code = text((err as { code?: unknown })?.code);
  if (code === '23514') return 'check_violation';
  return /^2[23]/.test(code) ? `sqlstate_${code}` : null;
}

async function handle(m: Delivery): Promise<void> {
  received += 1;
  lastDeliveryAt = performance.now();
  const id = fieldsOfDelivery(m);
  const attempt = steps.attempt(attemptOf(m.headers, name.work));
  const at = { ...SERVICE_FIELDS, ...id, destination: name.work };
  rt.emit('consumer', {
    ...at,
    consumer: CONSUMER,
    attempt,
    redelivered: m.redelivered,
    xDeath: deathSummary(m.headers),
    status: 'received',
  });
  // what --step shows of the message at each of its checkpoints
  const count = m.headers['x-delivery-count'];
  const shown = {
    ...(id.aggregateId ? { label: id.aggregateId } : {}),
    attempt,
    redelivered: m.redelivered,
    ...(typeof count === 'number' ? { deliveryCount: count } : {}),
    deaths: deadLetterHistory(m.headers).map(({ queue, reason, count }) => ({ queue, reason, count })),
  };
  await gate('after-delivery', id.messageId, shown);
  try {
    const status = await commitOrder(rt.db, id.messageId, m.body);
    rt.emit('consumer', { ...at, attempt, status });
    await gate('before-ack', id.messageId, shown);
    m.ack();
    settled.add(id.messageId);
  } catch (err) {
    const error = businessFailure(err);
    if (error === null) throw err; // not the message's fault: stop, unacked messages go back to the queue
    if (attempt < MAX_ATTEMPTS) {
      rt.emit('consumer', { ...at, attempt, error, status: 'retry' });
      await gate('before-retry', id.messageId, shown);
      m.reject(false); // the work queue dead-letters it to the retry queue; the broker counts it in x-death
      // the hop itself, for the class: a pause while the message waits out its TTL in the retry queue
      if (await seenIn(name.retry)) await childCheckpoint('in-retry', id.messageId, { ...shown, queue: name.retry });
    } else {
      await gate('before-dlq', id.messageId, shown);
      const props = { ...m.raw.properties, headers: dlqHeaders(m.headers, attempt, name.work, error) };
      // safe in the DLQ before the original goes
      const status = await steps.toDlq(() => rt.broker.sendConfirmed(name.dlq, m.raw.content, props));
      m.ack();
      rt.emit('consumer', { ...at, attempt, error, status });
      settled.add(id.messageId);
    }
  }
  if (settled.size >= expected) allSettled.resolve();
}

/** the rejected message reached `queue` (dead-lettering is asynchronous): polled for at most one TTL */
async function seenIn(queue: string): Promise<boolean> {
  const end = performance.now() + 1000;
  for (;;) {
    if ((await rt.broker.depth(queue)) > 0) return true;
    if (performance.now() > end) return false;
    await sleep(10);
  }
}

let code = 0;
const consumer = await rt.broker.consume(name.work, handle, { prefetch: 10 });
try {
  // a busy machine makes deliveries later, not absent: give up only when none came for idleMs
  // (a pause at a checkpoint, however long the class talks, is not idleness)
  const lastActivity = () => (pauses.active() ? performance.now() : Math.max(lastDeliveryAt, pauses.endedAt()));
  const idle = await settledOrIdle(Promise.race([allSettled.promise, consumer.failure]), lastActivity, idleMs, clock);
  if (idle)
    throw new Error(
      `no delivery for ${idleMs} ms with ${settled.size} of ${expected} messages settled on ${name.work}`,
    );
  await consumer.cancel();
  rt.emit('consumer', { ...SERVICE_FIELDS, queue: name.work, received, status: 'done' });
} catch (err) {
  code = 1;
  rt.emit('consumer', {
    ...SERVICE_FIELDS,
    queue: name.work,
    received,
    settled: settled.size,
    error: String((err as Error)?.message ?? err),
    status: 'failed',
  });
} finally {
  await rt.close();
}
process.exitCode = code;
