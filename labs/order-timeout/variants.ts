/**
 * TEST ONLY: where order-timeout's broken variants (declared in meta.ts;
 * MQLAB_FAULT=order-timeout:<name>, src/lab/fault.ts) replace a step of the experiment lab.ts runs
 * (`TimeoutSteps`). lab.ts reads as the correct experiment.
 */
import type { Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import type { Guards } from './orders.js';

/** the steps of the experiment a broken variant may replace */
export interface TimeoutSteps {
  /** the conditional UPDATE's guards: the status is still CREATED, the deadline has passed */
  guards: Guards;
  /** before the check consumer reads the order: nothing (it is prompt) */
  beforeRead(): Promise<unknown>;
  /** the payment that lands during a check: after the read, before the conditional UPDATE */
  payAroundClose<T>(pay: () => Promise<unknown>, close: () => Promise<T>): Promise<T>;
  /** after the consumer left: nothing more is published */
  afterConsumed(): Promise<unknown>;
  /** the sweeper: closes what the pending-task table still shows as due */
  sweep(sweeper: () => Promise<string[]>): Promise<string[]>;
}

export const variants = (
  slowDown: () => Promise<unknown>,
  lateCheck: () => Promise<unknown>,
): Variants<TimeoutSteps, Fault> => ({
  'no-status-guard': (s) => ({ guards: { ...s.guards, status: false } }),
  'no-deadline-guard': (s) => ({ guards: { ...s.guards, deadline: false } }),
  'slow-consumer': { beforeRead: slowDown },
  // the payment lands after the UPDATE: nothing stands between the read and the close
  'gate-off': {
    payAroundClose: async (pay, close) => {
      const closed = await close();
      await pay();
      return closed;
    },
  },
  // a producer not stopped: one more check after the consumer left
  'late-check': { afterConsumed: lateCheck },
  'no-sweeper': { sweep: () => Promise.resolve([]) },
});
