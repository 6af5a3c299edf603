/**
 * order-timeout, broken on purpose (MQLAB_FAULT=order-timeout:<fault>; variants.ts, the
 * guards in orders.ts): each check is shown failing when the experiment it observes goes wrong, and
 * the lab exits 1. No other check may fail, except the one timing check, which a broken run on an
 * overloaded 2-core machine may also fail (a broken run is not the place to judge it).
 */
import { expect } from 'vitest';
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

const strict = { only: true, alsoMayFail: ['latestCheckCloseAfterDeadlineMs'] } as const;

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  {
    title: 'no status guard: paid orders closed, the duplicate check closes twice',
    faults: ['no-status-guard'],
    ...strict,
    run: async (standard) =>
      expect((await standard()).stderr).toContain('MQLAB_FAULT asks for the broken variant(s) no-status-guard'),
  },
  {
    title: 'no deadline guard: the early check closes the extended order before its deadline',
    faults: ['no-deadline-guard'],
    ...strict,
  },
  {
    title: 'no sweeper: the order whose check was lost stays open, its task pending',
    faults: ['no-sweeper'],
    ...strict,
  },
  {
    title: 'gate off: the payment lands after the UPDATE, so the paid-during-check order is closed',
    faults: ['gate-off'],
    ...strict,
  },
  { title: 'slow consumer: checks close later than one delay after the deadline', faults: ['slow-consumer'] },
  { title: 'a check published after the consumer left: it waits in the queues', faults: ['late-check'], ...strict },
]);
