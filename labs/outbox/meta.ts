/** outbox's metadata: cheap to import (the CLI lists and describes labs from it); its code loads when it runs. */
import { defineLab } from '../../src/lab.js';
import { faults } from './faults.js';

/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
const checkpoints = {
  'committed':
    'the two committed orders have unsent outbox rows; the queue is empty: the business side published nothing',
  'relay-crashed':
    'relay-run1 died by SIGKILL after the broker confirmed evt-order-2 and before marking it sent: that row is unsent while the queue holds both events',
  'relayed':
    'relay-run2 published the unsent row again: no unsent row left, three messages in the queue (one duplicate)',
  'consumed':
    'the consumer took all three: one duplicate skipped by the dedupe claim, one business effect per committed order',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;

export const meta = defineLab({
  name: 'outbox',
  title: 'transactional outbox: business success must be published, a rollback never is',
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
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
