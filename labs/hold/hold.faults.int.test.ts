/**
 * hold, broken on purpose (MQLAB_FAULT, src/lab/fault.ts): each check is shown failing when the
 * experiment it observes goes wrong. The recover timeout is short: in these runs nothing recovers.
 */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  {
    title: 'a policy that matches no queue: nothing is held, nothing recovered',
    faults: ['wrong-pattern'],
    args: ['--recover-timeout', '3s'],
  },
  {
    title: 'the target is never unbound, and the application republishes the event itself',
    faults: ['keep-binding', 'republish', 'late-republish'],
    args: ['--recover-timeout', '3s'],
  },
  {
    title: 'the binding is never restored: the letter stays held and the policy must stay',
    faults: ['no-rebind'],
    args: ['--recover-timeout', '3s'],
  },
  {
    title: 'the event published twice: two letters held, two delivered to the target',
    faults: ['publish-twice'],
    args: ['--recover-timeout', '3s'],
  },
]);
