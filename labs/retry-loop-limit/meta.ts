/** The retry-loop-limit lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
import { LIMIT, LOOPS, WAIT_TTL_MS } from './names.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'retry-loop-limit',
  title: 'a TTL retry loop wears down the delivery limit (4.0+), and the dead-letter cycle rule',
  proves:
    `A message rejected (requeue=false) ${LOOPS} times through a TTL wait queue (${WAIT_TTL_MS} ms) back into its quorum work queue ` +
    `(x-delivery-limit ${LIMIT}) arrives with the delivery count it gathered (4.x: absent, 1 … ${LOOPS}; 3.10: absent every time); ` +
    `then one reject(requeue=true) dead-letters it at once as delivery_limit (3.10: after ${LIMIT + 1}), and its way back into the wait ` +
    `queue is a fully automatic cycle that 4.x drops (3.10 lets it loop). A message that never was rejected goes ` +
    `delivery_limit → wait → expired and is dropped on its second arrival in work, on both lines.`,
  // each lap waits the TTL; the drop is decided after a window of TTL + 1.5 s without a return
  floorMs: LOOPS * WAIT_TTL_MS + 2 * (WAIT_TTL_MS + 1500),
  // no database in this process: the run opens no connection to PostgreSQL
  database: false,
  options: {},
  checks: ['loopDeliveryCounts', 'requeuesUntilDeadLetter', 'deadLetterReason', 'cycleAfterLimit', 'freshLimitCycle'],
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
