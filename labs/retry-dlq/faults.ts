/**
 * TEST ONLY: the retry-dlq lab's broken variants (MQLAB_FAULT=retry-dlq:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'wrong-attempt': { breaks: 'the consumer counts attempts from 2', fails: ['poisonAttempts'] },
  'no-commit': { breaks: 'healthy orders are acked without their business row', fails: ['business_rows'] },
  'drop-poison': {
    breaks: 'the poison order is acked on its last attempt without its copy to the DLQ',
    fails: ['poisonMovedToDlq', 'dlqMessages'],
  },
  'late-publish': {
    breaks: 'a producer publishes one more order to the work and the retry queue after the consumer stopped',
    fails: ['workQueueDepthAfter', 'retryQueueDepthAfter'],
  },
  unroutable: {
    breaks: 'one order is published to a key no queue is bound to: returned, not confirmed',
    fails: ['confirmed'],
  },
  'throw-healthy': {
    breaks: "the consumer fails on a healthy order with an error that is not the message's fault",
    fails: ['consumer.exitCode'],
  },
});

/** a broken variant of retry-dlq */
export type Fault = keyof typeof faults;
