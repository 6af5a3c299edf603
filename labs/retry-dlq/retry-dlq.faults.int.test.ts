/** retry-dlq, broken on purpose (MQLAB_FAULT, src/lab/fault.ts): each check is shown failing when what it observes goes wrong. */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  {
    title: 'a wrong attempt count, no business row, a poison message dropped, a producer publishing late',
    faults: ['wrong-attempt', 'no-commit', 'drop-poison', 'late-publish'],
  },
  {
    title:
      'an order published to a key no queue is bound to (returned), and a consumer that fails on a healthy message',
    faults: ['unroutable', 'throw-healthy'],
  },
]);
