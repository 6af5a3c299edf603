/**
 * TEST ONLY: the broker-restart lab's broken variants (MQLAB_FAULT=broker-restart:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'transient-classic': {
    breaks: 'transient messages on a classic queue: the restart loses what the queue held',
    fails: ['heldRedelivered', 'survivedDelivered', 'missingIds', 'effectRows'],
  },
  'no-resend': { breaks: 'the producer forgets what was not confirmed at the restart', fails: ['unconfirmedResent'] },
  'no-dedupe': {
    breaks: 'the consumer writes without the idempotency key: redeliveries write twice',
    fails: ['duplicateEffects'],
  },
  'no-restart': {
    breaks: 'the run never restarts the node: no new process, no refused port, nothing unconfirmed',
    fails: ['brokerPidChanged', 'brokerRefused', 'unconfirmedAtRestart', 'heldRedelivered'],
  },
});

/** a broken variant of broker-restart */
export type Fault = keyof typeof faults;
