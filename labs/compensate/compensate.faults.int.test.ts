/** compensate, broken on purpose (MQLAB_FAULT, src/lab/fault.ts): each check is shown failing when what it observes goes wrong. */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  {
    title: 'a release without its condition, writing the wrong state, in races that do not race',
    faults: ['unconditional-release', 'wrong-state', 'serialize'],
  },
]);
