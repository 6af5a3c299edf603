/**
 * TEST ONLY: the retry-loop-limit lab's broken variants (MQLAB_FAULT=retry-loop-limit:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'count-missing-as-zero': { breaks: 'an absent x-delivery-count is read as 0', fails: ['loopDeliveryCounts'] },
  'no-delivery-limit': {
    breaks: 'the work queue without x-delivery-limit: never dead-lettered within the requeues tried',
    fails: ['requeuesUntilDeadLetter', 'deadLetterReason', 'cycleAfterLimit', 'freshLimitCycle'],
  },
  'wait-by-consumer': {
    breaks:
      'a worker rejects the letters out of the wait queue instead of a TTL: a client reject in the loop, no cycle (4.x)',
    fails: ['loopDeliveryCounts', 'cycleAfterLimit', 'freshLimitCycle'],
  },
});

/** a broken variant of retry-loop-limit */
export type Fault = keyof typeof faults;
