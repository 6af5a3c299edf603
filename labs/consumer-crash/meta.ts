/** The consumer-crash lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
import { options } from './options.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'consumer-crash',
  title: 'a consumer crash between business commit and ack, caught by the idempotency table',
  proves:
    'A consumer process that commits its business row and is SIGKILLed before its ack (exit 137) sends no ack: ' +
    'the broker redelivers that message to the next consumer process with redelivered=true, the processed_messages ' +
    'unique key turns it into duplicate_skipped, and after 4 deliveries of 3 unique messages there are exactly ' +
    '3 business rows and an empty queue.',
  floorMs: 0,
  options,
  // the replay gates of the consumer processes (src/kit/gates/replay-gate.ts), each a checkpoint of this process, then the lab's own
  checks: [
    'crashExitCode',
    'crashAfterBusinessCommit',
    'receivedTotal',
    'redeliveredCount',
    'duplicatesObserved',
    'uniqueMessageIds',
    'business_rows',
    'queueDepthAfter',
    'consumer-run2.exitCode',
  ],
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
