/**
 * outbox, broken on purpose (MQLAB_FAULT=outbox:<fault>; variants.ts, for the lab
 * and its relay process): each check is shown failing when the experiment it observes
 * goes wrong, and the lab exits 1.
 */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  { title: 'a relay that is never killed: nothing confirmed-but-unmarked, no duplicate', faults: ['no-crash'] },
  {
    title: 'a relay that marks the row sent before it publishes: the killed relay loses order-2',
    faults: ['mark-before-publish'],
  },
  { title: 'no second relay run: the unmarked row stays unsent', faults: ['no-second-relay'] },
  { title: 'a consumer that does not dedupe: order-2 applied twice', faults: ['no-dedupe'] },
  {
    title: 'a publish inside the business transaction: the rolled-back order is published',
    faults: ['publish-in-transaction'],
  },
]);
