/** auto-ack-loss's metadata: cheap to import (the CLI lists and describes labs from it); its code loads when it runs. */
import { defineLab, type FaultName } from '../../src/kit/index.js';

import { CRASH_AFTER, FLOOR_MS, FORGET_PREFETCH, MESSAGES, PREFETCH } from './names.js';

export const meta = defineLab({
  name: 'auto-ack-loss',
  title: '"auto-ack with a durable queue is safe" is false: a consumer crash loses what was delivered',
  summary:
    'auto-ack + a consumer crash loses confirmed messages from a durable queue (lost count from rows); manual ack loses none; unacked piles up when a consumer forgets to ack',
  seed: '004',
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
  // the broken variants (MQLAB_FAULT=auto-ack-loss:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'no-crash': {
      breaks: 'the consumers are never killed: nothing lost, nothing redelivered',
      fails: ['autoAckExit', 'autoAckLost', 'manualExit', 'manualRedelivered'],
    },
    'ack-manually-in-auto': {
      breaks: 'the auto-ack phase acks by hand: the unprocessed messages stay in the queue',
      fails: ['autoAckQueueAfterCrash', 'autoAckLost'],
    },
    'auto-ack-in-manual': {
      breaks: 'the manual phase consumes in auto-ack: it loses messages too',
      fails: ['manualLost', 'manualRedelivered'],
    },
    'acks-after-all': {
      breaks: 'the forgetful consumer acks after all: nothing unacked, nothing ready after close',
      fails: ['unackedWhileOpen', 'readyAfterClose'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    'auto-ack-crashed':
      'the noAck consumer died by SIGKILL after 5 rows: the queue is empty, the table has 5 rows, the rest are lost',
    'manual-crashed':
      'the manual-ack consumer died the same way: its unacked messages are ready again; the second process has not started',
    'unacked-held':
      'the consumer that never acks is idle with its channel open: its messages are not ready (the statistics show them unacked)',
    returned: 'it closed its channel: every message is ready again, none unacked',
  },
});

/** a broken variant of auto-ack-loss */
export type Fault = FaultName<typeof meta.faults>;
