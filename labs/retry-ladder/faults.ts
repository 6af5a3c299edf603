/**
 * TEST ONLY: the retry-ladder lab's broken variants (MQLAB_FAULT=retry-ladder:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

/** one check per delay tier's gap of the exhausted message (the default ladder has nine) */
export const EXHAUSTED_GAP_CHECKS = [
  'exhaustedGap1Ms',
  'exhaustedGap2Ms',
  'exhaustedGap3Ms',
  'exhaustedGap4Ms',
  'exhaustedGap5Ms',
  'exhaustedGap6Ms',
  'exhaustedGap7Ms',
  'exhaustedGap8Ms',
  'exhaustedGap9Ms',
] as const;

export const faults = defineFaults({
  'write-before-call': {
    breaks: "the effect is written before the call's outcome is known: every failing attempt leaves a row",
    fails: ['businessRows', 'recoveredCommittedAttempt'],
  },
  'self-dead-letter': {
    breaks: 'the application copies the exhausted message to the DLQ itself: no x-death',
    fails: ['dlqDeathReason'],
  },
  'park-twice': {
    breaks: 'the parked message is published to the parking queue twice',
    fails: ['placement', 'extraCopies', 'parkingDepth'],
  },
  'late-retry': {
    breaks: 'a retry copy is published to the top tier after the consumer stopped',
    fails: ['leftInFlight'],
  },
  'ignore-deadline': {
    breaks: 'the consumer ignores the deadline: parked climbs every tier into the DLQ',
    fails: ['parkedAttempts', 'parkedAttemptCount', 'parkedLeftMs', 'dlqDepth'],
  },
  'double-increment': {
    breaks: 'the attempt header skips a number on each retry',
    fails: ['recoveredAttempts', 'exhaustedAttempts', 'parkedAttempts'],
  },
  'skip-delay': {
    breaks: 'retries go straight back to the work queue, past the delay tiers (run with --max-attempts 10: every tier)',
    fails: ['exhaustedTiersMs', ...EXHAUSTED_GAP_CHECKS, 'everyGapCoversItsTier'],
  },
  'park-early': {
    breaks: 'the parked message is parked on its first failure, which the deadline did not call for',
    fails: ['parkedLeftMs'],
  },
});

/** a broken variant of retry-ladder */
export type Fault = keyof typeof faults;
