/** The hold lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/lab.js';
import { options } from './options.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'hold',
  title: 'at-least-once dead lettering holds a letter while its target is unbound',
  proves:
    'With the policy me12-hold (dead-letter-strategy at-least-once, overflow reject-publish) on the source, a ' +
    'message rejected without requeue while the target queue is unbound stays held in the source (messages=1, ' +
    "ready=0, unacked=0) and the target stays empty; once the binding is restored the broker's own dead-letter " +
    'worker delivers the same message id and body, with an x-death entry for the source, and the application ' +
    'publishes nothing again. The policy is cleared only when the source holds no letter.',
  // the worker's tick that finds the target bound (≈3 s after the rejection on mqlab's services), then one
  // quorum-queue tick (1 s there) showing the source's counters empty: a held letter shows nowhere else, and clearing
  // the policy while one is held would delete it (docs/labs/hold.md, Timing)
  floorMs: 3000 + 1000,
  options,
  checks: [
    'policyStored',
    'policyOnSource',
    'targetUnbound',
    'targetEmpty',
    'sourceWhileHeld',
    'bindingRestored',
    'recoveredOriginalEvent',
    'targetDeliveries',
    'deadLetteredByBroker',
    'noApplicationRepublish',
    'sourceAfter',
    'policyCleared',
    'targetDepthAfter',
  ],
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
