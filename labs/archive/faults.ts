/**
 * TEST ONLY: the archive lab's broken variants (MQLAB_FAULT=archive:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'ack-before-commit': {
    breaks: 'the archiver acks a letter before its row commits: the killed one is never handed back',
    fails: ['redeliveredToSecondArchiver', 'duplicateSkipped'],
  },
  'newest-death-only': {
    breaks: 'the archiver reads only x-death[0], the newest death',
    fails: ['firstDeath', 'originalRoute'],
  },
  'skip-in-progress': {
    breaks: 'the status goes ARCHIVED to FIXED, skipping IN_PROGRESS: the trigger refuses it',
    fails: ['statusLifecycle', 'backwardsStatusRefused'],
  },
  'old-row-29d': { breaks: 'the old row is 29 days old, inside the 30-day retention', fails: ['purged'] },
  'late-publish': { breaks: 'a producer that was not stopped publishes one more order', fails: ['queueDepthAfter'] },
  'exit-zero': { breaks: 'the first archiver exits 0 instead of being killed', fails: ['firstArchiverExitCode'] },
  'no-dedupe': {
    breaks: 'the archive insert has no ON CONFLICT: the redelivered letter hits the unique business id',
    fails: ['failureRows'],
  },
  'oldest-death-only': { breaks: 'the archiver reads only the oldest x-death entry', fails: ['attempts', 'lastDeath'] },
  'business-acks-one': {
    breaks: 'the business consumer acks an order it should reject: one dead letter less',
    fails: ['deadLetters'],
  },
  'kill-before-commit': {
    breaks: 'the first archiver is killed before its commit, not after',
    fails: ['committedBeforeKill'],
  },
  'skip-redelivered': {
    breaks: 'the second archiver skips redelivered letters',
    fails: ['rowsForRedelivered', 'archivedIds', 'keptAfterPurge'],
  },
});

/** a broken variant of archive */
export type Fault = keyof typeof faults;
