/**
 * The archiver: a process of its own (docs/labs/archive.md, step 2) that consumes the DLQ and writes each dead letter
 * into the archive table, acking only after the row is committed. It stops once the DLQ is drained.
 *
 *   node archiver.js                       archive until the DLQ is empty, then exit 0
 *   node archiver.js --kill-after-commit   SIGKILL itself after the first committed row, before its ack
 *                                          (the broker redelivers that letter to the next archiver)
 */
import { childRuntime } from '../../src/kit/child/runtime.js';
import { deferred, type Delivery } from '../../src/kit/index.js';
import type { ArchiveNames } from './names.js';
import { archiveLetter } from './store.js';
import type { ArchiverSteps } from './archiver-steps.js';
import type { Fault } from './meta.js';

const killAfterCommit = process.argv.includes('--kill-after-commit');
const rt = await childRuntime<ArchiveNames, Fault>();
const name = rt.names;
const drained = deferred();
let stopping = false;
let active = false;

const emit = (fields: Record<string, unknown>) => rt.emit(rt.process, { destination: name.dlq, ...fields });

/** the event lines are out before the process dies */
const flushed = () => new Promise<void>((resolve) => process.stdout.write('', () => resolve()));

const ack = (m: Delivery) => {
  m.ack();
  emit({ messageId: m.messageId, status: 'acked' });
};

// the archiver's steps, as taught
const steps = await rt.steps<ArchiverSteps>(
  {
    readLetter: (m) => m,
    dedupe: true,
    archiveThenAck: async (_m, archive, ackIt) => {
      await archive();
      ackIt();
    },
    die: () => process.kill(process.pid, 'SIGKILL'),
  },
  async () => (await import('./variants.js')).archiver,
);

const consumer = await rt.broker.consume(
  name.dlq,
  async (m) => {
    active = true;
    emit({ messageId: m.messageId, redelivered: m.redelivered, status: 'received' });
    await steps.archiveThenAck(
      m,
      () => archive(m),
      () => ack(m),
    );
    active = false;
    if (stopping) drained.resolve();
    else if ((await rt.broker.depth(name.dlq)) === 0) await stop();
  },
  { prefetch: 1 },
);

/** archive the letter (commit); with --kill-after-commit die once its first row is committed, before the ack */
async function archive(m: Delivery): Promise<void> {
  const r = await archiveLetter(rt.db, name, steps.readLetter(m), { dedupe: steps.dedupe });
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
    steps.die();
  }
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

if ((await rt.broker.depth(name.dlq)) === 0) await stop();
try {
  await Promise.race([drained.promise, consumer.failure]);
  emit({ status: 'drained' });
} finally {
  await rt.close();
}
