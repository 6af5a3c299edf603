/** The retry-ladder lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, parseOptions, type FaultName } from '../../src/kit/index.js';
import { ladderFloorMs } from './backoff.js';
import { options, validate } from './options.js';

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

export const meta = defineLab({
  name: 'retry-ladder',
  title: 'tiered TTL delay queues, exponential backoff and a deadline that wins over the count',
  summary: 'tiered TTL delay queues, `min(maxDelay, base × 2^(n-1))`, a deadline that wins over the count',
  seed: '003 §3.3, 000',
  proves:
    'Retries climb a ladder of delay queues, one fixed TTL each (200/400/800 ms by default: ' +
    'min(max-delay, d × 2^(n-1))), with the attempt in the application’s own header; observed gaps between ' +
    'deliveries are at least each tier’s TTL and grow tier by tier. A message that recovers on attempt 3 ' +
    'makes one business row; one that never recovers makes exactly max-attempts attempts and is rejected ' +
    'into the DLQ; one whose deadline cannot cover the next wait plus a call is parked, reason in a header, ' +
    'after fewer attempts. Every message ends in exactly one place: business table, DLQ or parking queue.',
  floorMs: ladderFloorMs(parseOptions(options)),
  options,
  validate,
  checks: [
    'recoveredAttempts',
    'recoveredCommittedAttempt',
    'exhaustedAttempts',
    'exhaustedTiersMs',
    ...EXHAUSTED_GAP_CHECKS,
    'everyGapCoversItsTier',
    'parkedAttempts',
    'parkedAttemptCount',
    'parkedLeftMs',
    'dlqDeathReason',
    'businessRows',
    'placement',
    'extraCopies',
    'leftInFlight',
    'dlqDepth',
    'parkingDepth',
  ],
  // the broken variants (MQLAB_FAULT=retry-ladder:<name>): what each breaks, and the checks that must print FAIL
  faults: {
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
      breaks:
        'retries go straight back to the work queue, past the delay tiers (run with --max-attempts 10: every tier)',
      fails: ['exhaustedTiersMs', ...EXHAUSTED_GAP_CHECKS, 'everyGapCoversItsTier'],
    },
    'park-early': {
      breaks: 'the parked message is parked on its first failure, which the deadline did not call for',
      fails: ['parkedLeftMs'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    settled:
      'every message has reached its place (one business row for recovers, exhausted in the DLQ, parked in the parking queue); the work and delay queues are empty',
  },
});

/** a broken variant of retry-ladder */
export type Fault = FaultName<typeof meta.faults>;
