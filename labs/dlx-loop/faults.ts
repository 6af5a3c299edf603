/**
 * TEST ONLY: the dlx-loop lab's broken variants (MQLAB_FAULT=dlx-loop:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'requeue-loop': {
    breaks: 'the loop uses nack(requeue) instead of a dead-letter hop: no x-death at all',
    fails: ['xDeathCounts', 'loopHistory'],
  },
  'fixed-loop-binding': {
    breaks: "the fixed queue's dead-letter route also leads straight back to it",
    fails: ['fixedLoopDetected', 'fixedShortestRetryGapMs', 'queueDepthAfter'],
  },
  'no-loop-binding': {
    breaks: "the broken queue's dead-letter route is unbound: a rejected message is dropped",
    fails: ['loopDetected'],
  },
  'off-by-one': { breaks: 'the fixed consumer allows one attempt too many', fails: ['leftLoopAfterAttempts'] },
  'archive-without-id': { breaks: 'the archived copy loses its message id', fails: ['archived'] },
  'leave-archive': { breaks: 'the archived letter is put back in its queue', fails: ['queueDepthAfter'] },
});

/** a broken variant of dlx-loop */
export type Fault = keyof typeof faults;
