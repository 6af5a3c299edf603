/**
 * order-timeout, broken on purpose (MQLAB_FAULT=order-timeout:<fault>; ctx.fault in lab.ts, the
 * guards in orders.ts): each check is shown failing when the experiment it observes goes wrong, and
 * the lab exits 1. No other check may fail, except the one timing check, which a broken run on an
 * overloaded 2-core machine may also fail (a broken run is not the place to judge it).
 */
import { describe, expect, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const NS = useNamespace(import.meta.url).namespace;

const base = { lab: 'order-timeout', namespace: NS, only: true, alsoMayFail: ['latestCheckCloseAfterDeadlineMs'] } as const;

describe('order-timeout: broken variants fail the checks that observe them', () => {
  it('no status guard: paid orders closed, the duplicate check closes twice', async () => {
    const r = await expectFaultsFail({
      ...base,
      faults: ['no-status-guard'],
      fails: ['FAIL closedOrders:', 'FAIL duplicateCheck:', 'FAIL ordersClosedTwice:', 'FAIL paidOrders:'],
    });
    expect(r.stderr).toContain('MQLAB_FAULT asks for the broken variant(s) no-status-guard');
  });

  it('no deadline guard: the early check closes the extended order before its deadline', () =>
    expectFaultsFail({ ...base, faults: ['no-deadline-guard'], fails: ['FAIL closedBeforeDeadline:', 'FAIL earliestCloseAfterDeadlineMs:', 'FAIL sweeperClosed:'] }));

  it('no sweeper: the order whose check was lost stays open, its task pending', () =>
    expectFaultsFail({ ...base, faults: ['no-sweeper'], fails: ['FAIL closedOrders:', 'FAIL pendingTasksAfter:', 'FAIL sweeperClosed:'] }));

  it('gate off: the payment lands after the UPDATE, so the paid-during-check order is closed', () =>
    expectFaultsFail({ ...base, faults: ['gate-off'], fails: ['FAIL closedOrders:', 'FAIL paidOrders:', 'FAIL paymentBetweenReadAndUpdate:'] }));

  it('slow consumer: checks close later than one delay after the deadline', () =>
    expectFaultsFail({ lab: base.lab, namespace: base.namespace, faults: ['slow-consumer'], fails: ['FAIL latestCheckCloseAfterDeadlineMs:'] }));

  it('a check published after the consumer left: it waits in the queues', () =>
    expectFaultsFail({ ...base, faults: ['late-check'], fails: ['FAIL queueDepthAfter:'] }));
});
