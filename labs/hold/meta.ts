/** The hold lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
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
  // the 2 s window and the worker's tick after it that finds the target bound: ≈3 s after the rejection on
  // mqlab's services (docs/labs/hold.md, Timing)
  floorMs: 3000,
  // and, run by run, the part of the quorum queue's tick after the delivery that the run sat out (0–1 s there) for
  // its counters to show the source empty (sourceAfter: the seed clears the policy once no letter waits to be
  // handed over, and a held letter shows nowhere else)
  serviceWaitMs: (f) => (typeof f.heldAfterDeliveryMs === 'number' ? f.heldAfterDeliveryMs : null),
  // no database in this process: the run opens no connection to PostgreSQL
  database: false,
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
