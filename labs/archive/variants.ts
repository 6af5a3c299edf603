/**
 * TEST ONLY: where the archive lab's broken variants (declared in meta.ts; MQLAB_FAULT=archive:<name>,
 * src/lab/fault.ts) replace a step: of the lab (`ArchiveSteps`, lab.ts) or of the archiver process
 * (`ArchiverSteps`, archiver.ts). Both files read as the correct experiment.
 */
import type { Delivery, Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import type { Letter } from './letter.js';

/** the steps of the lab a broken variant may replace */
export interface ArchiveSteps {
  /** how the business consumer settles an order it cannot serve: rejected, so the broker dead-letters it */
  settleOrder(m: Delivery): void;
  /** the operator's status moves for A1001 after ARCHIVED */
  statusMoves: readonly ('IN_PROGRESS' | 'FIXED')[];
  /** the age of the row retention must purge: older than the 30-day retention */
  oldRowDays: number;
  /** what is published after the archive is done: nothing, the producer has stopped */
  afterArchive(): Promise<unknown>;
}

export const labVariants = (lateOrder: () => Promise<unknown>): Variants<ArchiveSteps, Fault> => ({
  'business-acks-one': {
    settleOrder: (m) => (m.messageId === 'order-without-id' ? m.ack() : m.reject(false)),
  },
  'skip-in-progress': { statusMoves: ['FIXED'] },
  'old-row-29d': { oldRowDays: 29 },
  'late-publish': { afterArchive: lateOrder },
});

/** the steps of the archiver a broken variant may replace */
export interface ArchiverSteps {
  /** the letter as the archiver reads it from a delivery */
  readLetter(m: Letter): Letter;
  /** the insert skips a business id already archived (ON CONFLICT DO NOTHING) */
  dedupe: boolean;
  /** the order of the commit and the ack: commit first, so a killed archiver's letter comes back */
  archiveThenAck(m: Delivery, archive: () => Promise<void>, ack: () => void): Promise<void>;
  /** how --kill-after-commit ends the process once its first row is committed */
  die(): void;
  /** before anything is archived (with --kill-after-commit): nothing */
  beforeArchive(m: Delivery): Promise<void>;
  /** the DLQ handler, as it is */
  wrapHandler(handle: (m: Delivery) => Promise<void>): (m: Delivery) => Promise<void>;
}

/** a letter with only one of its x-death entries (and no x-first-death-* headers) */
function withOneDeath(m: Letter, pick: (deaths: unknown[]) => unknown[]): Letter {
  const deaths = Array.isArray(m.headers['x-death']) ? (m.headers['x-death'] as unknown[]) : [];
  const headers = Object.fromEntries(Object.entries(m.headers).filter(([k]) => !k.startsWith('x-first-death-')));
  return { body: m.body, messageId: m.messageId, headers: { ...headers, 'x-death': pick(deaths) } };
}

export const archiverVariants = (
  killAfterCommit: boolean,
  killNow: (m: Delivery) => Promise<void>,
  ack: (m: Delivery) => void,
): Variants<ArchiverSteps, Fault> => ({
  // x-death[0] only: the classic mistake
  'newest-death-only': { readLetter: (m) => withOneDeath(m, (d) => d.slice(0, 1)) },
  'oldest-death-only': { readLetter: (m) => withOneDeath(m, (d) => d.slice(-1)) },
  'no-dedupe': { dedupe: false },
  'ack-before-commit': {
    archiveThenAck: async (_m, archive, ackIt) => {
      ackIt();
      await archive();
    },
  },
  // a clean exit instead of a kill: the unacked letter still comes back
  'exit-zero': { die: () => process.exit(0) },
  'kill-before-commit': { beforeArchive: async (m) => (killAfterCommit ? killNow(m) : undefined) },
  // a wrong dedupe: "redelivered means already archived"
  'skip-redelivered': {
    wrapHandler: (handle) => async (m) => (m.redelivered ? ack(m) : handle(m)),
  },
});
