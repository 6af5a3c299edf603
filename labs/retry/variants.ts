/**
 * TEST ONLY: the retry lab's broken variants (declared in meta.ts; MQLAB_FAULT=retry:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one. lab.ts reads as the correct protocol; each
 * entry here is one way to get it wrong: a replaced step (`RetrySteps`), an action on an event the lab
 * logs, or the broker handle decorated.
 */
import { onConsume, type VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { RetrySteps } from './lab.js';
import { names } from './names.js';

export const variants: VariantsOf<typeof meta, RetrySteps> = {
  'ack-poison': () => ({ settlePoison: (m) => m.ack() }),
  'skip-delay': (_, ctx) => ({ retryQueue: names(ctx.names).work }),
  'skip-attempt': () => ({ nextAttempt: (attempt) => attempt + 2 }),
  'no-commit': (correct) => ({ commit: async (id) => (id === 'transient' ? undefined : correct.commit(id)) }),
  // one more retry copy once the transient message's business row is committed: it ends in a queue
  'extra-copy': {
    after: { source: 'consumer', messageId: 'transient', status: 'business_committed' },
    run: (ctx, e) =>
      ctx.broker.sendConfirmed(names(ctx.names).delay, 'transient', {
        messageId: 'transient',
        headers: { attempt: Number(e.fields.attempt) + 1 },
      }),
  },
  // the healthy message's first ack becomes a nack with requeue: the broker delivers it again
  'requeue-healthy': {
    broker: (broker, ctx) => {
      let first = true;
      return onConsume(broker, names(ctx.names).work, {
        handler: (handle) => (m) => {
          if (m.messageId !== 'healthy' || !first) return handle(m);
          first = false;
          return handle({ ...m, ack: () => m.nack(true) });
        },
      });
    },
  },
};
