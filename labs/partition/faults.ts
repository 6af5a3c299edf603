/**
 * TEST ONLY: the partition lab's broken variants (MQLAB_FAULT=partition:<name>, src/lab/fault.ts): what each
 * breaks and the checks that must print FAIL in a run of it. Data only: meta.ts imports it; variants.ts
 * says which step of the experiment each replaces.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'cut-follower': {
    breaks:
      "the lab cuts off a follower's node (producer B's), not the leader's: the leader keeps leading and confirming",
    fails: ['leaderChanged', 'cutOffLeaderConfirmsNothing', 'majorityResumedMs', 'majorityConfirmsDuringCut'],
  },
  'no-heal': {
    breaks: 'the links stay cut until the lab ends: the nodes never see each other again, the replica never catches up',
    fails: ['partitionHealed', 'cutOffReplicaCaughtUp'],
  },
  'no-resend': {
    breaks: 'the producer does not send again the ids it has no confirm for',
    fails: ['everyIdConsumed', 'unconfirmedResent'],
  },
  'resend-confirmed': {
    breaks: 'the producer sends a window of confirmed ids again too',
    fails: ['duplicatesNotUnconfirmed'],
  },
  'timeout-is-confirm': {
    breaks: 'the producer takes a confirm timeout for a confirm (and so sends nothing again)',
    fails: ['confirmedLost'],
  },
  'short-cut': {
    breaks: "the cut is healed before the nodes' failure detector (net_ticktime) can see it",
    fails: ['partitionObserved'],
  },
});

/** a broken variant of partition */
export type Fault = keyof typeof faults;
