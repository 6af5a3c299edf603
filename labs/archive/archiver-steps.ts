/**
 * What archive's archiver process runs that a broken variant may replace. archiver.ts runs it as taught
 * and, through rt.steps, loads variants.ts (TEST ONLY) only when a run names a fault; variants.ts takes
 * the type from here, not from archiver.ts, so the two do not import each other.
 */
import type { Delivery } from '../../src/kit/index.js';
import type { Letter } from './letter.js';

/** the steps of the archiver a broken variant may replace (variants.ts, TEST ONLY) */
export interface ArchiverSteps {
  /** the letter as the archiver reads it from a delivery */
  readLetter(m: Letter): Letter;
  /** the insert skips a business id already archived (ON CONFLICT DO NOTHING) */
  dedupe: boolean;
  /** the order of the commit and the ack: commit first, so a killed archiver's letter comes back */
  archiveThenAck(m: Delivery, archive: () => Promise<void>, ack: () => void): Promise<void>;
  /** how --kill-after-commit ends the process once its first row is committed */
  die(): void;
}
