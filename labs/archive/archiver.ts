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
import type { ArchiveNames } from './names.js';
import { archiveLetter } from './store.js';

const killAfterCommit = process.argv.includes('--kill-after-commit');
const rt = await childRuntime<ArchiveNames>();
const x = rt.names;
const drained = deferred();
let stopping = false;
let active = false;

const emit = (fields: Record<string, unknown>) => rt.emit(rt.process, { destination: x.dlq, ...fields });

const consumer = await rt.broker.consume(
  x.dlq,
  async (m) => {
    active = true;
    emit({ messageId: m.messageId, redelivered: m.redelivered, status: 'received' });
    const r = await archiveLetter(rt.db, x, m);
    if (r.outcome === 'failed') emit({ messageId: m.messageId, sqlState: r.sqlState, error: r.error, status: 'failure_recorded' });
    else emit({ messageId: m.messageId, businessId: r.businessId, status: r.outcome === 'archived' ? 'archived' : 'duplicate_skipped' });
    if (killAfterCommit && r.outcome === 'archived') {
      emit({ messageId: m.messageId, businessId: r.businessId, status: 'killed_before_ack' });
      await new Promise<void>((resolve) => process.stdout.write('', () => resolve())); // the event lines are out
      process.kill(process.pid, 'SIGKILL');
    }
    m.ack();
    emit({ messageId: m.messageId, status: 'acked' });
    active = false;
    if (stopping) drained.resolve();
    else if ((await rt.broker.depth(x.dlq)) === 0) await stop();
  },
  { prefetch: 1 },
);

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
