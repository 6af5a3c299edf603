/**
 * TEST ONLY: the order-timeout lab's broken variants (MQLAB_FAULT=order-timeout:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
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
});

/** a broken variant of order-timeout */
export type Fault = keyof typeof faults;
