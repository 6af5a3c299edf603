/** The crash-loop lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
import { DELAY_MS, LIMIT } from './names.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'crash-loop',
  title: 'a poison pill that kills its consumer on every delivery, ended by the delivery limit',
  proves:
    `A message that makes its consumer process die (SIGKILL, exit 137) on every delivery, on a quorum queue with ` +
    `x-delivery-limit ${LIMIT}: each death returns it and counts (x-delivery-count absent, 1, 2 as the broker sent it), and after ` +
    `${LIMIT + 1} deliveries the broker dead-letters it with reason delivery_limit. Beside it a message nacked with requeue ` +
    `${LIMIT + 1} times: on 4.3 nack does not count (acked on delivery ${LIMIT + 2}), on 3.10 every return counts (dead-lettered). ` +
    `4.3 only: with x-delayed-retry-type=failed and min ${DELAY_MS} ms the crash's redelivery waits at least ${DELAY_MS} ms.`,
  // the delayed crash's redelivery waits DELAY_MS (4.3)
  floorMs: DELAY_MS,
  // no database in this process (its poison consumers connect for themselves): the run opens none
  database: false,
  options: {},
  checks: [
    'crashExits',
    'deliveriesUntilDeadLetter',
    'deadLetterReason',
    'deliveryCounts',
    'acquiredCounts',
    'deadLetterDeliveryCount',
    'nackLoop',
    'crashRedeliveryDelayedMs',
  ],
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
