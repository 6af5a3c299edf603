/**
 * TEST ONLY: the crash-loop lab's broken variants (MQLAB_FAULT=crash-loop:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'count-missing-as-zero': {
    breaks: 'an absent x-delivery-count is read as 0',
    fails: ['deliveryCounts', 'acquiredCounts'],
  },
  'reject-for-nack': {
    breaks: 'the nack loop rejects with requeue instead: on 4.3 that counts toward the limit',
    fails: ['nackLoop'],
  },
  'no-delayed-retry': {
    breaks: "the delayed queue is declared without x-delayed-retry-*: the crash's redelivery comes at once",
    fails: ['crashRedeliveryDelayedMs'],
  },
  'nack-instead-of-crash': {
    breaks:
      'the consumer nacks and exits cleanly instead of dying: on 4.3 a nack does not count, nothing is dead-lettered',
    fails: ['crashExits', 'deliveriesUntilDeadLetter', 'deadLetterReason', 'deliveryCounts'],
  },
  'no-delivery-limit': {
    breaks: 'the work and nack queues without x-delivery-limit: the crash loop goes on',
    fails: ['deliveriesUntilDeadLetter', 'deadLetterReason', 'deadLetterDeliveryCount'],
  },
});

/** a broken variant of crash-loop */
export type Fault = keyof typeof faults;
