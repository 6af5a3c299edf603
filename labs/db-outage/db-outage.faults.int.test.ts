/** db-outage, broken on purpose (MQLAB_FAULT, src/lab/fault.ts): each check is shown failing when what it observes goes wrong. */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  {
    title: 'a consumer that acks on receipt: the held message is lost when its transaction fails',
    faults: ['ack-before-commit'],
  },
  {
    title: 'a consumer whose effect and key commit separately: the redelivery writes the effect twice',
    faults: ['autocommit'],
  },
  {
    title: 'a run that never stops PostgreSQL: nothing shows the database down, no commit fails',
    faults: ['no-outage'],
  },
]);
