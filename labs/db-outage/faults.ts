/**
 * TEST ONLY: the db-outage lab's broken variants (MQLAB_FAULT=db-outage:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'ack-before-commit': {
    breaks: 'the consumer acks on receipt: the held message is lost when its transaction fails',
    fails: ['heldDeliveryOutcome', 'readyWhileHeld', 'ackedBeforeCommit', 'lostIds', 'effectRows'],
  },
  autocommit: {
    breaks: 'the effect and the dedupe key commit separately: the redelivery writes the effect twice',
    fails: ['duplicateEffects', 'effectRows'],
  },
  'no-outage': {
    breaks: 'the run never stops PostgreSQL: nothing shows the database down, no commit fails',
    fails: ['postgresExited', 'postgresRefused', 'failedCommits'],
  },
});

/** a broken variant of db-outage */
export type Fault = keyof typeof faults;
