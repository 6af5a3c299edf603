/**
 * TEST ONLY: the auto-ack-loss lab's broken variants (MQLAB_FAULT=auto-ack-loss:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'no-crash': {
    breaks: 'the consumers are never killed: nothing lost, nothing redelivered',
    fails: ['autoAckExit', 'autoAckLost', 'manualExit', 'manualRedelivered'],
  },
  'ack-manually-in-auto': {
    breaks: 'the auto-ack phase acks by hand: the unprocessed messages stay in the queue',
    fails: ['autoAckQueueAfterCrash', 'autoAckLost'],
  },
  'auto-ack-in-manual': {
    breaks: 'the manual phase consumes in auto-ack: it loses messages too',
    fails: ['manualLost', 'manualRedelivered'],
  },
  'acks-after-all': {
    breaks: 'the forgetful consumer acks after all: nothing unacked, nothing ready after close',
    fails: ['unackedWhileOpen', 'readyAfterClose'],
  },
});

/** a broken variant of auto-ack-loss */
export type Fault = keyof typeof faults;
