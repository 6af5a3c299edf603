/** consumer-crash, broken on purpose (MQLAB_FAULT, src/lab/fault.ts): each check is shown failing when what it observes goes wrong. */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  {
    title: 'a consumer that acks before its commit and takes every message at once',
    faults: ['ack-before-commit', 'prefetch-all'],
  },
  {
    title: 'a consumer that does not dedupe, exits cleanly instead of dying, and whose second run dies too',
    faults: ['no-dedupe', 'exit-cleanly', 'crash-again'],
  },
]);
