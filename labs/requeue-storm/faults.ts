/**
 * TEST ONLY: the requeue-storm lab's broken variants (MQLAB_FAULT=requeue-storm:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'delayed-requeues': {
    breaks: 'the delayed mode requeues at once instead of going through the delay queue',
    fails: ['delayedGapMinMs'],
  },
  'healthy-lost': {
    breaks: 'the last healthy message of each mode is acked unprocessed',
    fails: ['healthyProcessedRequeue', 'healthyProcessedDelayed'],
  },
  'leave-failing': {
    breaks: 'the failing message is put back at the end instead of being taken off',
    fails: ['queueDepthAfter'],
  },
  'requeue-waits': {
    breaks: 'the requeue consumer holds the failing message one delay TTL before its nack',
    fails: ['requeueGapP50Ms'],
  },
});

/** a broken variant of requeue-storm */
export type Fault = keyof typeof faults;
