/** The order-timeout lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
import { DELAY_MS, options } from './options.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'order-timeout',
  title: 'a delayed check closes only an unpaid order; a sweeper finds the lost check',
  proves:
    'Six orders, each with a deadline and a pending task, and a check message through a TTL delay queue. The consumer ' +
    "re-reads the order and closes it only with UPDATE … WHERE status='CREATED' AND deadline <= now(): the orders " +
    "paid before or during their check stay PAID (the late payment lands between the check's read and its UPDATE), " +
    'a check delivered twice closes once, no order closes before its deadline (database timestamps; an early check ' +
    'after a deadline extension changes nothing), and a sweeper over the pending-task table closes the order whose ' +
    'check message was taken out of the delay queue.',
  // the checks' TTL, then the extended order's second delay before the sweeper
  floorMs: 2 * DELAY_MS.default,
  options,
  checks: [
    'closedOrders',
    'paidOrders',
    'paymentBetweenReadAndUpdate',
    'duplicateCheck',
    'ordersClosedTwice',
    'closedBeforeDeadline',
    'earliestCloseAfterDeadlineMs',
    'latestCheckCloseAfterDeadlineMs',
    'sweeperClosed',
    'pendingTasksAfter',
    'queueDepthAfter',
  ],
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
