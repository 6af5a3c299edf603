/** The retry-loop-limit lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';
import { LIMIT, LOOPS, WAIT_TTL_MS } from './names.js';

export const meta = defineLab({
  name: 'retry-loop-limit',
  title: 'a TTL retry loop wears down the delivery limit (4.3+), and the dead-letter cycle rule',
  summary:
    'on 4.3 a TTL retry loop carries the count the delivery limit reads: after enough laps one requeue, even a nack, dead-letters at once (`delivery_limit`), and the cycle rule drops the letter on its way back into the loop; 4.0–4.2 carry a count the limit does not read; 3.10 loops for ever',
  proves:
    `A message rejected (requeue=false) ${LOOPS} times through a TTL wait queue (${WAIT_TTL_MS} ms) back into its quorum work queue ` +
    `(x-delivery-limit ${LIMIT}) arrives with the delivery count it gathered (4.x: absent, 1 … ${LOOPS}; 3.10: absent every time). ` +
    `On 4.3 that is the count the limit compares: one reject(requeue=true) dead-letters it at once as delivery_limit, and so does ` +
    `one nack(requeue=true), which does not raise the count; on 4.0–4.2 the limit compares the acquired count, which starts again ` +
    `in every queue, and on 3.10 nothing was carried: ${LIMIT + 1} requeues, nacks or rejects. Its way back into the wait ` +
    `queue is a fully automatic cycle that 4.x drops (3.10 lets it loop). A message that never was rejected goes ` +
    `delivery_limit → wait → expired and is dropped on its second arrival in work, on every line.`,
  // each lap waits the TTL; the drop is decided after a window of TTL + 1.5 s without a return
  floorMs: LOOPS * WAIT_TTL_MS + 2 * (WAIT_TTL_MS + 1500),
  // no database in this process: the run opens no connection to PostgreSQL
  database: false,
  // the expectation of requeuesUntilDeadLetter and nacksUntilDeadLetter reads which count the limit
  // compares (deliveryLimitCounter), measured on the broker at hand by the capability probe
  measuresCapabilities: true,
  options: {},
  checks: [
    'loopDeliveryCounts',
    'requeuesUntilDeadLetter',
    'nacksUntilDeadLetter',
    'deadLetterReason',
    'cycleAfterLimit',
    'freshLimitCycle',
  ],
  // the broken variants (MQLAB_FAULT=retry-loop-limit:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'count-missing-as-zero': { breaks: 'an absent x-delivery-count is read as 0', fails: ['loopDeliveryCounts'] },
    'no-delivery-limit': {
      breaks: 'the work queue without x-delivery-limit: never dead-lettered within the requeues tried',
      fails: [
        'requeuesUntilDeadLetter',
        'nacksUntilDeadLetter',
        'deadLetterReason',
        'cycleAfterLimit',
        'freshLimitCycle',
      ],
    },
    'wait-by-consumer': {
      breaks:
        'a worker rejects the letters out of the wait queue instead of a TTL: a client reject in the loop, no cycle (4.x)',
      fails: ['loopDeliveryCounts', 'cycleAfterLimit', 'freshLimitCycle'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {},
});

/** a broken variant of retry-loop-limit */
export type Fault = FaultName<typeof meta.faults>;
