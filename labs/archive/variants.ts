/**
 * TEST ONLY: the archive lab's broken variants (declared in meta.ts; MQLAB_FAULT=archive:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: a replaced step of the lab (`ArchiveSteps`,
 * lab.ts) or of the archiver process (`ArchiverSteps`, archiver-steps.ts), or an action on an event the lab
 * logs. Both files read as the correct experiment.
 */
import type { ChildRuntime, Variants, VariantsOf } from '../../src/kit/index.js';
import type { meta, Fault } from './meta.js';
import type { ArchiveSteps } from './lab.js';
import type { ArchiverSteps } from './archiver-steps.js';
import { businessIdOf, type Letter } from './letter.js';
import { names, type ArchiveNames } from './names.js';

export const variants: VariantsOf<typeof meta, ArchiveSteps> = {
  'business-acks-one': () => ({
    settleOrder: (m) => (m.messageId === 'order-without-id' ? m.ack() : m.reject(false)),
  }),
  'skip-in-progress': () => ({ statusMoves: ['FIXED'] }),
  'old-row-29d': () => ({ oldRowDays: 29 }),
  // a producer not stopped: one more order once retention has purged
  'late-publish': {
    after: { source: 'retention', status: 'purged' },
    run: (ctx) => ctx.broker.sendConfirmed(names(ctx.names).work, '{"orderId":"A1003"}', { messageId: 'order-A1003' }),
  },
};

/** a letter with only one of its x-death entries (and no x-first-death-* headers) */
function withOneDeath(m: Letter, pick: (deaths: unknown[]) => unknown[]): Letter {
  const deaths = Array.isArray(m.headers['x-death']) ? (m.headers['x-death'] as unknown[]) : [];
  const headers = Object.fromEntries(Object.entries(m.headers).filter(([k]) => !k.startsWith('x-first-death-')));
  return { body: m.body, messageId: m.messageId, headers: { ...headers, 'x-death': pick(deaths) } };
}

export const archiver: Variants<ArchiverSteps, Fault, ChildRuntime<ArchiveNames, Fault>> = {
  // x-death[0] only: the classic mistake
  'newest-death-only': () => ({ readLetter: (m) => withOneDeath(m, (d) => d.slice(0, 1)) }),
  'oldest-death-only': () => ({ readLetter: (m) => withOneDeath(m, (d) => d.slice(-1)) }),
  'no-dedupe': () => ({ dedupe: false }),
  'ack-before-commit': () => ({
    archiveThenAck: async (_m, archive, ackIt) => {
      ackIt();
      await archive();
    },
  }),
  // a clean exit instead of a kill: the unacked letter still comes back
  'exit-zero': () => ({ die: () => process.exit(0) }),
  // a wrong dedupe: "redelivered means already archived"
  'skip-redelivered': (applied) => ({
    archiveThenAck: async (m, archive, ack) => (m.redelivered ? ack() : applied.archiveThenAck(m, archive, ack)),
  }),
  // with --kill-after-commit: killed as the first letter arrives, before anything is committed (redelivered or not)
  'kill-before-commit': (applied, rt) => ({
    archiveThenAck: (m, archive, ack) =>
      rt.args.includes('--kill-after-commit')
        ? killedBeforeCommit(rt, m.messageId, m.body)
        : applied.archiveThenAck(m, archive, ack),
  }),
};

async function killedBeforeCommit(rt: ChildRuntime<ArchiveNames>, messageId: string | undefined, body: string) {
  rt.emit(rt.process, {
    destination: rt.names.dlq,
    messageId,
    businessId: businessIdOf(body),
    status: 'killed_before_ack',
  });
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.kill(process.pid, 'SIGKILL');
}
