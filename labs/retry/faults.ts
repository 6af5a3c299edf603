/**
 * TEST ONLY: the retry lab's broken variants (MQLAB_FAULT=retry:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'skip-delay': {
    breaks: 'the retry copy goes straight back to the work queue, not through the TTL delay queue',
    fails: ['shortestRetryGapMs'],
  },
  'skip-attempt': { breaks: 'the retry copy is numbered attempt + 2', fails: ['transientAttempts'] },
  'no-commit': { breaks: 'the transient message is acked without its business row', fails: ['businessRows'] },
  'requeue-healthy': {
    breaks: 'the first ack of the healthy message is a nack with requeue: a second delivery',
    fails: ['healthyAttempts'],
  },
  'ack-poison': { breaks: 'the poison message is acked, not dead-lettered', fails: ['poisonDeadLettered'] },
  'extra-copy': {
    breaks: 'one more retry copy after the business row is committed: it ends in a queue',
    fails: ['queueDepthAfter'],
  },
});

/** a broken variant of retry */
export type Fault = keyof typeof faults;
