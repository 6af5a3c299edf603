/** auto-ack-loss's metadata: cheap to import (the CLI lists and describes labs from it); its code loads when it runs. */
import { defineLab } from '../../src/kit/index.js';

import { CRASH_AFTER, FLOOR_MS, FORGET_PREFETCH, MESSAGES, PREFETCH } from './names.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'auto-ack-loss',
  title: '"auto-ack with a durable queue is safe" is false: a consumer crash loses what was delivered',
  proves:
    `${MESSAGES} confirmed messages in a durable quorum queue; a consumer process with noAck=true (prefetch ${PREFETCH}, which ` +
    `the broker ignores without acks) is SIGKILLed after ${CRASH_AFTER} rows: the queue is empty and the table holds fewer ` +
    'rows than were confirmed — the lost count is confirmed minus rows. The same with manual ack (row committed, then ' +
    'ack) loses nothing: the unacked messages come back with redelivered=true and a second process finishes them. A ' +
    `third consumer that never acks holds ${FORGET_PREFETCH} messages while its channel lives: they are not ready, and ` +
    'once it closes the channel they are ready again (both counts from passive declares).',
  floorMs: FLOOR_MS,
  options: {},
  checks: [
    'autoAckExit',
    'autoAckQueueAfterCrash',
    'autoAckLost',
    'manualExit',
    'manualLost',
    'manualRedelivered',
    'unackedWhileOpen',
    'readyAfterClose',
  ],
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
