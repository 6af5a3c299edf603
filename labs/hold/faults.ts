/**
 * TEST ONLY: the hold lab's broken variants (MQLAB_FAULT=hold:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
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
});

/** a broken variant of hold */
export type Fault = keyof typeof faults;
