/**
 * TEST ONLY: the ordering lab's broken variants (declared in meta.ts; MQLAB_FAULT=ordering:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: a replaced step of the consumer lab.ts runs
 * (`OrderingSteps`), or the broker handle decorated. lab.ts reads as the correct experiment.
 */
import { onConsume, type VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { OrderingSteps } from './lab.js';
import type { OrderEvent } from './store.js';
import { AGGREGATE, names } from './names.js';

export const variants: VariantsOf<typeof meta, OrderingSteps> = {
  // the downstream never fails, so nothing is retried
  'v1-succeeds': () => ({ downstreamFails: () => false }),
  'no-version-check': (s) => ({ write: { ...s.write, versionCheck: false } }),
  'drop-stale': (s) => ({ write: { ...s.write, recordStale: false } }),
  // a producer that was not stopped sends one more event to the work queue once its consumer is cancelled
  'late-publish': {
    broker: (broker, ctx) => {
      const work = names(ctx.names).work;
      return onConsume(broker, work, {
        cancel: async (cancel) => {
          await cancel();
          const v3: OrderEvent = { eventId: `${AGGREGATE}-v3`, aggregateId: AGGREGATE, version: 3, status: 'paid' };
          await broker.sendConfirmed(work, JSON.stringify(v3), { messageId: v3.eventId });
        },
      });
    },
  },
};
