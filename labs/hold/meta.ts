/** The hold lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';
import { options } from './options.js';

export const meta = defineLab({
  name: 'hold',
  title: 'at-least-once dead lettering holds a letter while its target is unbound',
  summary:
    'at-least-once dead lettering: a letter rejected while its target is unbound is held, then delivered by the broker',
  seed: '000 `hold`',
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
  // the broken variants (MQLAB_FAULT=hold:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'wrong-pattern': {
      breaks: 'the at-least-once policy matches no queue: the letter is dropped, nothing is held',
      fails: [
        'policyStored',
        'policyOnSource',
        'sourceWhileHeld',
        'recoveredOriginalEvent',
        'targetDeliveries',
        'deadLetteredByBroker',
        'noApplicationRepublish',
      ],
    },
    'keep-binding': {
      breaks: 'the target is never unbound: the letter is routed at once, nothing is held',
      fails: ['targetUnbound', 'targetEmpty'],
    },
    republish: {
      breaks: 'the application republishes the event itself after the rebind',
      fails: ['targetDeliveries', 'noApplicationRepublish'],
    },
    'late-republish': {
      breaks: 'the application republishes the event once more after the lab consumed the target',
      fails: ['targetDepthAfter'],
    },
    'no-rebind': {
      breaks: 'the binding is never restored: the letter stays held and the policy must stay',
      fails: ['bindingRestored', 'recoveredOriginalEvent', 'sourceAfter', 'policyCleared'],
    },
    'publish-twice': {
      breaks: 'the event is published twice: two letters are held and two reach the target',
      fails: ['targetDeliveries'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    'letter-held':
      'the end of the 2 s window: the letter was rejected while the target is unbound, the target is empty, and the latest reading of the counters of the source shows the held letter; the binding is not restored yet',
    recovered:
      "the binding is back and the target delivered the same message id and body, with the broker's x-death record",
  },
});

/** a broken variant of hold */
export type Fault = FaultName<typeof meta.faults>;
