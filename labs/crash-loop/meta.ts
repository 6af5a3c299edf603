/** The crash-loop lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';
import { DELAY_MS, LIMIT } from './names.js';

export const meta = defineLab({
  name: 'crash-loop',
  title: 'a poison pill that kills its consumer on every delivery, ended by the delivery limit',
  summary:
    "a poison pill that kills (SIGKILL) its consumer process on every delivery: the crashes count, `delivery_limit` after limit + 1 deliveries; a nack does not count on 4.3; `x-delayed-retry-type=failed` delays the crash's redelivery (4.3)",
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
  // the broken variants (MQLAB_FAULT=crash-loop:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'count-missing-as-zero': {
      breaks: 'an absent x-delivery-count is read as 0',
      fails: ['deliveryCounts', 'acquiredCounts'],
    },
    'reject-for-nack': {
      breaks: 'the nack loop rejects with requeue instead: on 4.3 that counts toward the limit',
      fails: ['nackLoop'],
    },
    'no-delayed-retry': {
      breaks: "the delayed queue is declared without x-delayed-retry-*: the crash's redelivery comes at once",
      fails: ['crashRedeliveryDelayedMs'],
    },
    'nack-instead-of-crash': {
      breaks:
        'the consumer nacks and exits cleanly instead of dying: on 4.3 a nack does not count, nothing is dead-lettered',
      fails: ['crashExits', 'deliveriesUntilDeadLetter', 'deadLetterReason', 'deliveryCounts'],
    },
    'no-delivery-limit': {
      breaks: 'the work and nack queues without x-delivery-limit: the crash loop goes on',
      fails: ['deliveriesUntilDeadLetter', 'deadLetterReason', 'deadLetterDeliveryCount'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {},
});

/** a broken variant of crash-loop */
export type Fault = FaultName<typeof meta.faults>;
