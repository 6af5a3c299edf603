/**
 * TEST ONLY: order-timeout's broken variants (declared in meta.ts; MQLAB_FAULT=order-timeout:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: a replaced step of the experiment lab.ts runs
 * (`TimeoutSteps`), or the check consumer decorated. lab.ts reads as the correct experiment.
 */
import { onConsume, type VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { TimeoutSteps } from './lab.js';
import { names } from './names.js';
import { ORDERS, checkId } from './scenario.js';

export const variants: VariantsOf<typeof meta, TimeoutSteps> = {
  'no-status-guard': (s) => ({ guards: { ...s.guards, status: false } }),
  'no-deadline-guard': (s) => ({ guards: { ...s.guards, deadline: false } }),
  // the consumer takes one delay before it reads each order
  'slow-consumer': {
    broker: (broker, ctx) =>
      onConsume(broker, names(ctx.names).check, {
        handler: (handle) => async (m) => {
          await ctx.sleep(ctx.options.delayMs);
          return handle(m);
        },
      }),
  },
  // the payment lands after the UPDATE: nothing stands between the read and the close
  'gate-off': () => ({
    payAroundClose: async (pay, close) => {
      const closed = await close();
      await pay();
      return closed;
    },
  }),
  // a producer not stopped: one more check once the consumer left
  'late-check': {
    broker: (broker, ctx) => {
      const name = names(ctx.names);
      return onConsume(broker, name.check, {
        cancel: async (cancel) => {
          await cancel();
          const id = ORDERS.unpaid;
          await broker.sendConfirmed(name.delay, id, { messageId: checkId(id) });
          ctx.log.emit('producer', { messageId: checkId(id), destination: name.delay, status: 'confirmed' });
        },
      });
    },
  },
  'no-sweeper': () => ({ sweep: () => Promise.resolve([]) }),
};
