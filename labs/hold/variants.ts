/**
 * TEST ONLY: hold's broken variants (declared in meta.ts; MQLAB_FAULT=hold:<name>, src/lab/fault.ts),
 * loaded only when a run asks for one: a replaced step of the experiment lab.ts runs (`HoldSteps`), or
 * the broker handle decorated. lab.ts reads as the correct experiment; each entry here is one way to
 * get it wrong.
 */
import { decorate, onConsume, type Broker, type LabContext, type VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { HoldSteps } from './lab.js';
import { ROUTING_KEY, names } from './names.js';

/** the application publishes the event to the dead-letter exchange itself */
const republish = (broker: Broker, ctx: LabContext, event: HoldSteps['event']) =>
  broker.publishConfirmed(names(ctx.names).dlx, ROUTING_KEY, event.body, event.props);

export const variants: VariantsOf<typeof meta, HoldSteps> = {
  'wrong-pattern': (s) => ({ policy: { ...s.policy, pattern: `${s.policy.pattern}-nothing` } }),
  'keep-binding': () => ({ unbindTarget: async () => {} }),
  'publish-twice': (s) => ({
    publish: async () => {
      await s.publish();
      await s.publish();
    },
  }),
  'no-rebind': () => ({ rebindTarget: async () => {} }),
  // right after the rebind, the application republishes the event itself
  republish: (s, ctx) => ({
    rebindTarget: async () => {
      await s.rebindTarget();
      await republish(ctx.broker, ctx, s.event);
    },
  }),
  // once the lab stopped consuming the target, the application republishes the event it published
  'late-republish': {
    broker: (broker, ctx) => {
      const name = names(ctx.names);
      let published: HoldSteps['event'] | undefined;
      const remembering = decorate(broker, {
        sendConfirmed: (queue, body, props) => {
          if (queue === name.source) published = { body: String(body), props: props ?? {} };
          return broker.sendConfirmed(queue, body, props);
        },
      });
      return onConsume(remembering, name.target, {
        cancel: async (cancel) => {
          await cancel();
          if (published) await republish(broker, ctx, published);
        },
      });
    },
  },
};
