/**
 * TEST ONLY: the quorum-failover lab's broken variants (MQLAB_FAULT=quorum-failover:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'kill-follower': {
    breaks: 'the lab kills a follower, not the leader: the leader does not change',
    fails: ['leaderChanged'],
  },
  'confirm-early': {
    breaks: 'the producer counts a write to the socket as a confirm (and so resends nothing)',
    fails: ['confirmedLost'],
  },
  'no-resend': {
    breaks: 'the producer does not resend the ids still unconfirmed at the kill',
    fails: ['everyIdConsumed'],
  },
  'resend-window': {
    breaks: 'the producer resends a window of confirmed ids too',
    fails: ['duplicatesNotUnconfirmed'],
  },
  'no-restart': {
    breaks: 'the killed node is left down: its replica never catches up',
    fails: ['killedReplicaCaughtUp'],
  },
  'slow-reconnect': {
    breaks: 'the producer waits longer than the failover bound before it reconnects',
    fails: ['failoverMs'],
  },
  'declare-at-once': {
    breaks:
      'the queue is declared again right after its delete, while the deleted replicas still terminate (on 3.10 the killed node can come back without the new replica: a race, decided from its log)',
    fails: ['killedReplicaCaughtUp'],
  },
});

/** a broken variant of quorum-failover */
export type Fault = keyof typeof faults;
