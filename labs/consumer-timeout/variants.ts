/**
 * TEST ONLY: consumer-timeout's broken variants (declared in meta.ts; MQLAB_FAULT=consumer-timeout:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one. lab.ts reads as the correct experiment; each
 * entry here is one way to get it wrong: a replaced step (`TimeoutSteps`), the topology changed, or the
 * broker handle decorated.
 */
import type { ConfirmChannel } from 'amqplib';
import { decorate, type VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { TimeoutSteps } from './lab.js';
import { names } from './names.js';

export const variants: VariantsOf<typeof meta, TimeoutSteps> = {
  'no-consumer-timeout': () => ({ timeoutMs: null }),
  // the classic queue declared as a quorum queue
  'classic-as-quorum': {
    topology: (t, n) => ({
      ...t,
      queues: t.queues.map((q) => (q.name === names(n).classic ? { ...q, type: 'quorum' as const } : q)),
    }),
  },
  // the ignoring client consumes again when the broker cancels it, and acks what comes
  'reconsume-on-cancel': {
    broker: (broker, ctx) =>
      decorate(broker, {
        newChannel: async () => consumeAgainOnCancel(await broker.newChannel(), names(ctx.names).ignored),
      }),
  },
};

/**
 * `ch`, its consumers of `queue` consuming again on the same channel once the broker cancels them:
 * their handler gets every delivery after the cancel, each acked
 */
function consumeAgainOnCancel(ch: ConfirmChannel, queue: string): ConfirmChannel {
  const consume: ConfirmChannel['consume'] = ch.consume.bind(ch);
  return decorate(ch, {
    consume: (q, handler, options) =>
      q !== queue
        ? consume(q, handler, options)
        : consume(
            q,
            (m) => {
              handler(m);
              if (m) return;
              void consume(
                q,
                (again) => {
                  if (!again) return;
                  handler(again);
                  ch.ack(again);
                },
                options,
              );
            },
            options,
          ),
  });
}
