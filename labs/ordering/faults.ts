/**
 * TEST ONLY: the ordering lab's broken variants (MQLAB_FAULT=ordering:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'v1-succeeds': {
    breaks: 'the downstream never fails: no retry, no drift',
    fails: ['processingOrder', 'v1Attempts', 'retryGapMs', 'naiveFinalVersion'],
  },
  'no-version-check': {
    breaks: 'the upsert has no version condition: the stale v1 overwrites v2',
    fails: ['storedVersion', 'staleEvents', 'staleEvent'],
  },
  'late-publish': { breaks: 'a producer that was not stopped publishes v3', fails: ['queueDepthAfter'] },
  'drop-stale': { breaks: 'a stale event is acked without a record', fails: ['lostEvents', 'staleEvents'] },
});

/** a broken variant of ordering */
export type Fault = keyof typeof faults;
