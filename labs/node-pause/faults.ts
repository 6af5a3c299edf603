/**
 * TEST ONLY: the node-pause lab's broken variants (MQLAB_FAULT=node-pause:<name>, src/lab/fault.ts): what each
 * breaks and the checks that must print FAIL in a run of it. Data only: meta.ts imports it; variants.ts
 * says which step of the experiment each replaces.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'pause-follower': {
    breaks:
      "the lab freezes a follower's node (producer B's), not the leader's: the leader keeps leading and confirming",
    fails: ['leaderChanged', 'frozenLeaderAnsweredNothing', 'majorityResumedMs', 'majorityConfirmsDuringPause'],
  },
  'no-resume': {
    breaks: 'the node stays frozen until the lab ends: it is never seen again, its replica never catches up',
    fails: ['resumedSeen', 'frozenReplicaCaughtUp'],
  },
  'no-resend': {
    breaks:
      'the producer does not send again the ids it has no confirm for: no node ever confirms them (whether the resumed node still enqueues them is a race, so everyIdConsumed may pass)',
    fails: ['unconfirmedResent'],
  },
  'resend-confirmed': {
    breaks: 'the producer sends a window of confirmed ids again too',
    fails: ['duplicatesNotUnconfirmed'],
  },
  'timeout-is-confirm': {
    breaks:
      'the producer takes a confirm timeout for a confirm (and so sends nothing again): the frozen node seems to confirm',
    fails: ['frozenLeaderAnsweredNothing'],
  },
  'ack-before-record': {
    breaks: 'the consumer acks its first deliveries before it has recorded them, and loses them',
    fails: ['confirmedLost', 'everyIdConsumed'],
  },
  'short-pause': {
    breaks: "the node is resumed before the others' failure detector (net_ticktime) can see it gone",
    fails: ['pauseObserved'],
  },
});

/** a broken variant of node-pause */
export type Fault = keyof typeof faults;
