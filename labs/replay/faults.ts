/**
 * TEST ONLY: the replay lab's broken variants (MQLAB_FAULT=replay:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'ack-before-confirm': {
    breaks: 'the dead original is acked before its repaired copy is confirmed',
    fails: ['sourceRemovedAfterConfirm'],
  },
  'new-id': { breaks: 'the replayed copy gets a new message id', fails: ['stableEventId'] },
  'raw-payload': {
    breaks: 'the unrepaired body is replayed: the receiver cannot verify it',
    fails: ['repairedPayload', 'verified', 'auditState'],
  },
  'publish-twice': { breaks: 'the repaired copy is published twice', fails: ['queueDepthAfter'] },
  'keep-original': {
    breaks: 'the original is never acked: it stays in the dead queue',
    fails: ['sourceRemovedAfterConfirm', 'queueDepthAfter'],
  },
});

/** a broken variant of replay */
export type Fault = keyof typeof faults;
