/** outbox's metadata: cheap to import (the CLI lists and describes labs from it); its code loads when it runs. */
import { defineLab, type FaultName } from '../../src/kit/index.js';

export const meta = defineLab({
  name: 'outbox',
  title: 'transactional outbox: business success must be published, a rollback never is',
  summary:
    'order + outbox row in one transaction; a relay killed between confirm and mark-sent republishes; the consumer dedupes; a rolled-back order is never published',
  seed: '004',
  proves:
    'Each order row and its outbox row commit in one transaction; a third order whose transaction fails leaves ' +
    'neither. A relay process publishes unsent outbox rows with confirms and marks them sent; SIGKILLed (exit 137) ' +
    'after the broker confirmed a row and before marking it, it leaves that row unsent, so a second relay process ' +
    'publishes it again. The consumer claims each event id in a dedupe table: one duplicate observed and skipped, ' +
    'exactly one business effect per committed order, no unsent outbox row left, and nothing on the queue for the ' +
    'rolled-back order.',
  floorMs: 0,
  options: {},
  checks: [
    'relayExit',
    'confirmedNotMarked',
    'outboxUnsentAfter',
    'duplicatesSkipped',
    'businessEffects',
    'rolledBackOrder',
  ],
  // the broken variants (MQLAB_FAULT=outbox:<name>): what each breaks, and the checks that must print FAIL
  faults: {
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
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    committed:
      'the two committed orders have unsent outbox rows; the queue is empty: the business side published nothing',
    'relay-crashed':
      'relay-run1 died by SIGKILL after the broker confirmed evt-order-2 and before marking it sent: that row is unsent while the queue holds both events',
    relayed:
      'relay-run2 published the unsent row again: no unsent row left, three messages in the queue (one duplicate)',
    consumed:
      'the consumer took all three: one duplicate skipped by the dedupe claim, one business effect per committed order',
  },
});

/** a broken variant of outbox */
export type Fault = FaultName<typeof meta.faults>;
