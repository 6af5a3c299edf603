/** outbox's metadata: cheap to import (the CLI lists and describes labs from it); its code loads when it runs. */
import { defineLab } from '../../src/kit/index.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

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
