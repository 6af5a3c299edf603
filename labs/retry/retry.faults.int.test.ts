/** retry, broken on purpose (MQLAB_FAULT, src/lab/fault.ts): each check is shown failing when what it observes goes wrong. */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  {
    title: 'a retry copy that skips the delay queue and an attempt, a lost commit, a requeued healthy message',
    faults: ['skip-delay', 'skip-attempt', 'no-commit', 'requeue-healthy'],
  },
  {
    title: 'a poison message acked instead of rejected, and a retry copy after the commit',
    faults: ['ack-poison', 'extra-copy'],
  },
]);
