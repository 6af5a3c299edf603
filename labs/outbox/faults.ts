/**
 * TEST ONLY: the outbox lab's broken variants (MQLAB_FAULT=outbox:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
  'no-crash': {
    breaks: 'the relay is never killed: nothing confirmed-but-unmarked, no duplicate',
    fails: ['relayExit', 'confirmedNotMarked', 'duplicatesSkipped'],
  },
  'mark-before-publish': {
    breaks: 'the relay marks a row sent before it publishes: the killed relay loses order-2',
    fails: ['confirmedNotMarked', 'duplicatesSkipped', 'businessEffects'],
  },
  'no-second-relay': { breaks: 'no second relay run: the unmarked row stays unsent', fails: ['outboxUnsentAfter'] },
  'no-dedupe': {
    breaks: 'the consumer does not dedupe: order-2 is applied twice',
    fails: ['duplicatesSkipped', 'businessEffects'],
  },
  'publish-in-transaction': {
    breaks: 'the business transaction publishes itself: the rolled-back order is published',
    fails: ['rolledBackOrder'],
  },
});

/** a broken variant of outbox */
export type Fault = keyof typeof faults;
