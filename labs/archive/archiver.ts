/**
 * The archiver: a process of its own (seed 003 §6) that consumes the DLQ and writes each dead letter
 * into the archive table, acking only after the row is committed. It stops once the DLQ is drained.
 *
 *   node archiver.js                       archive until the DLQ is empty, then exit 0
 *   node archiver.js --kill-after-commit   SIGKILL itself after the first committed row, before its ack
 *                                          (the broker redelivers that letter to the next archiver)
 */
import { childRuntime } from '../../src/child-runtime.js';
import { deferred } from '../../src/time.js';
import type { Delivery } from '../../src/broker/broker.js';
import type { ArchiveNames } from './names.js';
import { archiveLetter } from './store.js';
import { businessIdOf, type Letter } from './letter.js';
import type { Fault } from './faults.js';

/**
 * TEST ONLY faults (MQLAB_FAULT=archive:<fault>): kill-before-commit, skip-redelivered,
 * ack-before-commit, no-dedupe, exit-zero, and two ways of reading only one x-death entry:
 * newest-death-only (x-death[0], the classic mistake) and oldest-death-only.
 */
function faultyLetter(m: Letter): Letter {
  const deaths = Array.isArray(m.headers['x-death']) ? (m.headers['x-death'] as unknown[]) : [];
  const only = rt.fault('newest-death-only')
    ? deaths.slice(0, 1)
    : rt.fault('oldest-death-only')
      ? deaths.slice(-1)
      : null;
  if (!only) return m;
  const headers = Object.fromEntries(Object.entries(m.headers).filter(([k]) => !k.startsWith('x-first-death-')));
  return { body: m.body, messageId: m.messageId, headers: { ...headers, 'x-death': only } };
}

const killAfterCommit = process.argv.includes('--kill-after-commit');
const rt = await childRuntime<ArchiveNames, Fault>();
const x = rt.names;
const drained = deferred();
let stopping = false;
let active = false;

const emit = (fields: Record<string, unknown>) => rt.emit(rt.process, { destination: x.dlq, ...fields });

/** the event lines are out before the process dies */
const flushed = () => new Promise<void>((resolve) => process.stdout.write('', () => resolve()));

const consumer = await rt.broker.consume(
  x.dlq,
  async (m) => {
    active = true;
    emit({ messageId: m.messageId, redelivered: m.redelivered, status: 'received' });
    if (killAfterCommit && rt.fault('kill-before-commit')) {
      emit({ messageId: m.messageId, businessId: businessIdOf(m.body), status: 'killed_before_ack' });
      await flushed();
      process.kill(process.pid, 'SIGKILL');
    }
    if (rt.fault('skip-redelivered') && m.redelivered) {
      // a wrong dedupe: "redelivered means already archived"
      m.ack();
      emit({ messageId: m.messageId, status: 'acked' });
    } else await archiveThenAck(m);
    active = false;
    if (stopping) drained.resolve();
    else if ((await rt.broker.depth(x.dlq)) === 0) await stop();
  },
  { prefetch: 1 },
);

/** archive the letter (commit), then ack it; with --kill-after-commit die between the two */
async function archiveThenAck(m: Delivery): Promise<void> {
  const ackFirst = rt.fault('ack-before-commit');
  if (ackFirst) (m.ack(), emit({ messageId: m.messageId, status: 'acked' }));
  const r = await archiveLetter(rt.db, x, faultyLetter(m), { dedupe: !rt.fault('no-dedupe') });
  if (r.outcome === 'failed')
    emit({ messageId: m.messageId, sqlState: r.sqlState, error: r.error, status: 'failure_recorded' });
  else
    emit({
      messageId: m.messageId,
      businessId: r.businessId,
      status: r.outcome === 'archived' ? 'archived' : 'duplicate_skipped',
    });
  if (killAfterCommit && r.outcome === 'archived') {
    emit({ messageId: m.messageId, businessId: r.businessId, status: 'killed_before_ack' });
    await flushed();
    if (rt.fault('exit-zero')) process.exit(0); // a clean exit instead of a kill: the unacked letter still comes back
    process.kill(process.pid, 'SIGKILL');
  }
  if (!ackFirst) (m.ack(), emit({ messageId: m.messageId, status: 'acked' }));
}

/**
 * Stop consuming. A letter the broker sent before the cancel is dispatched before cancel-ok arrives,
 * so it is already queued behind this handler: finish it (and ack it) before exiting.
 */
async function stop() {
  stopping = true;
  await consumer.cancel();
  setTimeout(() => {
    if (!active) drained.resolve();
  }, 0);
}

if ((await rt.broker.depth(x.dlq)) === 0) await stop();
try {
  await Promise.race([drained.promise, consumer.failure]);
  emit({ status: 'drained' });
} finally {
  await rt.close();
}
