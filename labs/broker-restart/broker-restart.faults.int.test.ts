/** broker-restart, broken on purpose (MQLAB_FAULT, src/lab/fault.ts): each check is shown failing when what it observes goes wrong. */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  {
    title:
      'transient messages on a classic queue: the restart loses what the queue held, the held deliveries never come back',
    faults: ['transient-classic'],
  },
  {
    title: 'a producer that forgets what was not confirmed and a consumer without the idempotency key',
    faults: ['no-resend', 'no-dedupe'],
  },
  {
    title: 'a run that never restarts the node: no new process, no refused port, nothing unconfirmed',
    faults: ['no-restart'],
  },
]);
