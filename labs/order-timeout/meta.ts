/** The order-timeout lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';
import { DELAY_MS, options } from './options.js';

export const meta = defineLab({
  name: 'order-timeout',
  title: 'a delayed check closes only an unpaid order; a sweeper finds the lost check',
  summary:
    "a delayed check closes only an unpaid order (`UPDATE … WHERE status='CREATED' AND deadline <= now()`); a sweeper finds the lost check",
  seed: '000',
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
  // the broken variants (MQLAB_FAULT=order-timeout:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'no-status-guard': {
      breaks: 'the close has no status guard: paid orders are closed, the duplicate check closes twice',
      fails: ['closedOrders', 'duplicateCheck', 'ordersClosedTwice', 'paidOrders'],
    },
    'no-deadline-guard': {
      breaks: 'the close has no deadline guard: the early check closes the extended order before its deadline',
      fails: ['closedBeforeDeadline', 'earliestCloseAfterDeadlineMs', 'sweeperClosed'],
    },
    'no-sweeper': {
      breaks: 'no sweeper: the order whose check was lost stays open, its task pending',
      fails: ['closedOrders', 'pendingTasksAfter', 'sweeperClosed'],
    },
    'gate-off': {
      breaks: 'the payment lands after the UPDATE, so the paid-during-check order is closed',
      fails: ['closedOrders', 'paidOrders', 'paymentBetweenReadAndUpdate'],
    },
    'slow-consumer': {
      breaks: 'the consumer sleeps one delay before each check: checks close late',
      fails: ['latestCheckCloseAfterDeadlineMs'],
    },
    'late-check': {
      breaks: 'a check is published after the consumer left: it waits in the queues',
      fails: ['queueDepthAfter'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    'after-read':
      'the check of paid-during-check has read the order (CREATED, past its deadline) and not run its conditional UPDATE yet; the payment commits now, so the UPDATE will change nothing',
  },
});

/** a broken variant of order-timeout */
export type Fault = FaultName<typeof meta.faults>;
