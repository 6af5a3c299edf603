/**
 * TEST ONLY: where the ordering lab's broken variants (declared in meta.ts;
 * MQLAB_FAULT=ordering:<name>, src/lab/fault.ts) replace a step of the consumer lab.ts runs
 * (`OrderingSteps`). lab.ts reads as the correct experiment.
 */
import type { LabContext, Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import type { names } from './names.js';
import type { OrderEvent, WriteRules } from './store.js';

/** the steps of the ordering experiment a broken variant may replace */
export interface OrderingSteps {
  /** the downstream is briefly unavailable for this attempt of this event (a transient failure) */
  downstreamFails(e: OrderEvent, attempt: number): boolean;
  /** how the versioned writer writes */
  write: WriteRules;
  /** what is sent once every event has committed: nothing, the producer has stopped */
  afterFinished(): Promise<void>;
}

export const variants = (
  ctx: LabContext,
  name: ReturnType<typeof names>,
  last: OrderEvent,
): Variants<OrderingSteps, Fault> => ({
  // the downstream never fails, so nothing is retried
  'v1-succeeds': { downstreamFails: () => false },
  'no-version-check': (s) => ({ write: { ...s.write, versionCheck: false } }),
  'drop-stale': (s) => ({ write: { ...s.write, recordStale: false } }),
  // a producer that was not stopped sends one more event to the work queue
  'late-publish': {
    afterFinished: async () => {
      const v3 = { ...last, eventId: `${last.aggregateId}-v3`, version: last.version + 1 };
      await ctx.broker.sendConfirmed(name.work, JSON.stringify(v3), { messageId: v3.eventId });
    },
  },
});
