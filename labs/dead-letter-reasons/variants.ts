/**
 * TEST ONLY: dead-letter-reasons' broken variants (declared in meta.ts; MQLAB_FAULT=dead-letter-reasons:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: a replaced step of the producer or the
 * consumers lab.ts runs (`ReasonSteps`), or the broker handle decorated. lab.ts reads as the correct
 * experiment.
 */
import { onConsume, type VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { ReasonSteps } from './lab.js';
import { names, TWICE_AGAIN } from './names.js';

export const variants: VariantsOf<typeof meta, ReasonSteps> = {
  // straight into the work queues, not through the business exchange (twice still goes that way)
  'default-exchange': (applied, ctx) => ({
    publish: (path, id, props) =>
      path === 'twice'
        ? applied.publish(path, id, props)
        : ctx.broker.sendConfirmed(names(ctx.names).work[path], id, { messageId: id, ...props }),
  }),
  'publish-newest-first': () => ({ maxLengthOrder: ['newest', 'oldest'] }),
  // the application puts copies of the two TTL paths' messages into the dead-letter exchange itself,
  // before the real ones are sent: no x-death, expiration kept. The copies go out as the steps are
  // made, before the lab's consumers start and its first send is stamped: made at the first send
  // instead, they reached the watcher more than the TTL after it at a load of 40, and the lifetime
  // check could not tell them from an expiry
  'app-dead-letter': (applied, ctx) => {
    const dead = names(ctx.names).dead;
    const copies = (async () => {
      await ctx.broker.publishConfirmed(dead, 'queue-ttl', 'queue-ttl', { messageId: 'queue-ttl' });
      await ctx.broker.publishConfirmed(dead, 'message-ttl', 'message-ttl', {
        messageId: 'message-ttl',
        expiration: '60000',
      });
    })();
    copies.catch(() => {}); // its error reaches the run at the first send
    return {
      publish: async (path, id, props) => {
        await copies;
        return applied.publish(path, id, props);
      },
    };
  },
  // a consumer that rejects for good at once, so the limit never counts
  'limit-gives-up': () => ({ settleAtLimit: (m, settle) => settle(m, 'rejected', () => m.reject(false)) }),
  // the second death is the application copying the message itself, no broker dead-lettering
  'twice-app-copy': (applied, ctx) => ({
    settleTwice: async (m, n, settle) => {
      if (n !== 2) return applied.settleTwice(m, n, settle);
      await ctx.broker.publishConfirmed(names(ctx.names).dead, TWICE_AGAIN, m.body, {
        messageId: m.messageId,
        headers: m.headers,
      });
      settle(m, 'copied_by_app', () => m.ack());
    },
  }),
  // a producer that was not stopped puts one more message on a work queue once its consumer is cancelled
  'late-publish': {
    broker: (broker, ctx) => {
      const reject = names(ctx.names).work.reject;
      return onConsume(broker, reject, {
        cancel: async (cancel) => {
          await cancel();
          await broker.sendConfirmed(reject, 'late', { messageId: 'late' });
        },
      });
    },
  },
};
