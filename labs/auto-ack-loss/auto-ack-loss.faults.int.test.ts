/**
 * auto-ack-loss, broken on purpose (MQLAB_FAULT=auto-ack-loss:<fault>; variants.ts):
 * each check is shown failing when the experiment it observes goes wrong, and the lab exits 1.
 */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  { title: 'consumers that are never killed: nothing lost, nothing redelivered', faults: ['no-crash'] },
  {
    title: 'the auto-ack phase acking by hand: the unprocessed messages stay in the queue',
    faults: ['ack-manually-in-auto'],
  },
  { title: 'the manual phase in auto-ack: it loses messages too', faults: ['auto-ack-in-manual'] },
  {
    title: 'the forgetful consumer acks after all: nothing unacked, nothing ready after close',
    faults: ['acks-after-all'],
  },
]);
