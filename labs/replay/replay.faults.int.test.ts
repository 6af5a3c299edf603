/** replay, broken on purpose (MQLAB_FAULT, src/lab/fault.ts): each check is shown failing when what it observes goes wrong. */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  {
    title: 'the original acked before its copy, a new id, the unrepaired body, two copies',
    faults: ['ack-before-confirm', 'new-id', 'raw-payload', 'publish-twice'],
  },
  { title: 'the original is never acked: it stays in the dead queue', faults: ['keep-original'] },
]);
