/** The retry-ladder lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, parseOptions } from '../../src/kit/index.js';
import { ladderFloorMs } from './backoff.js';
import { options, validate } from './options.js';
import { EXHAUSTED_GAP_CHECKS, faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'retry-ladder',
  title: 'tiered TTL delay queues, exponential backoff and a deadline that wins over the count',
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
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
