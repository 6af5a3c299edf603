/**
 * TEST ONLY: the delayed-retry lab's broken variants (MQLAB_FAULT=delayed-retry:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'no-delayed-retry': {
    breaks: 'the queues are declared without x-delayed-retry-*: returns come back at once, nothing is held',
    fails: ['heldGapMs', 'heldInQueue', 'nackEarlyGaps', 'rejectEarlyGaps'],
  },
  'nack-for-reject': {
    breaks: 'nack where the lab means reject: the delivery count and the delay do not grow',
    fails: ['rejectDeliveryCounts', 'rejectEarlyGaps'],
  },
  'reject-for-nack': {
    breaks: 'reject where the lab means nack: the delivery count and the delay grow',
    fails: ['nackDeliveryCounts'],
  },
  'slow-consumer': {
    breaks: 'the consumer works longer than the maximum delay before returning',
    fails: ['nackMaxLateMs', 'rejectMaxLateMs'],
  },
  'no-max-length': {
    breaks: 'the held queue without x-max-length: the third publish is accepted too',
    fails: ['maxLengthCountsHeld'],
  },
  'native-bound': {
    breaks: "the native reject queue is also bound to an exchange, as a ladder's queue would be",
    fails: ['nativeTopology'],
  },
  'work-bound-to-retry': {
    breaks: "the ladder's work queue is bound to its retry exchange: the first retry comes back at once",
    fails: ['ladderTopology', 'ladderEarlyGaps', 'queueDepthAfter'],
  },
  'failed-as-all': {
    breaks: "the failed type's queue is declared with type all: a nack is delayed too",
    fails: ['typeDelays'],
  },
  'min-given': { breaks: 'the no-min queue and the policy without min both get a min', fails: ['minRequired'] },
  'max-not-below-min': {
    breaks: 'the policy whose max is below its min gets max = min: accepted',
    fails: ['policyMaxBelowMin'],
  },
  'max-given': {
    breaks: 'the max-default queue is declared with max = 3 x min: the waits grow',
    fails: ['maxDefaultsToMin'],
  },
  'no-policies': { breaks: 'the two precedence policies are not applied', fails: ['policyTypeWins', 'lowerMinWins'] },
  'unlimited-as-failed': {
    breaks: 'the x-delivery-limit -1 queue is declared with type failed: its nack is not delayed',
    fails: ['unlimitedLimitDelays'],
  },
});

/** a broken variant of delayed-retry */
export type Fault = keyof typeof faults;
