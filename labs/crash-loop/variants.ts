/**
 * TEST ONLY: crash-loop's broken variants (declared in meta.ts; MQLAB_FAULT=crash-loop:<variant>, src/lab/fault.ts): the seams that
 * apply them. lab.ts reads as the correct experiment.
 */
import {
  type LabContext,
  type Topology,
  declareTopology,
  withoutQueueArgs as without,
  readCount,
  type Count,
  type Delivery,
  type ChildRuntime,
  type Variants,
} from '../../src/kit/index.js';
import type { Fault } from './meta.js';

/** the topology a broken variant declares instead of the lab's (declared again over the engine's) */
export async function declareBroken(
  ctx: LabContext<unknown, Fault>,
  t: Topology,
  name: { work: string; nack: string; delayed: string },
): Promise<void> {
  let broken = t;
  if (ctx.fault('no-delivery-limit'))
    broken = without(
      broken,
      (q) => q === name.work || q === name.nack,
      (k) => k === 'x-delivery-limit',
    );
  if (ctx.fault('no-delayed-retry'))
    broken = without(
      broken,
      (q) => q === name.delayed,
      (k) => k.startsWith('x-delayed-retry'),
    );
  if (broken !== t) await declareTopology(ctx.broker, broken);
}

/** the header reader: as the broker sent it, or (broken) an absent header read as 0 */
export const countReader =
  (ctx: LabContext<unknown, Fault>) =>
  (v: unknown): Count => {
    const c = readCount(v);
    return c === 'absent' && ctx.fault('count-missing-as-zero') ? 0 : c;
  };

/** how the nack loop hands the message back */
export const nackLoopReturn = (ctx: LabContext<unknown, Fault>) => (ctx.fault('reject-for-nack') ? 'reject' : 'nack');

/** the poison consumer's failure (poison-consumer.ts) */
export interface PoisonSteps {
  fail(m: Delivery): Promise<void>;
}

export const poisonVariants = (
  rt: ChildRuntime<unknown, Fault>,
  queue: string,
  flushed: () => Promise<void>,
): Variants<PoisonSteps, Fault> => ({
  'nack-instead-of-crash': {
    // the consumer hands the message back and exits cleanly instead of dying. It cancels first: else
    // the broker pushes the message again at once and the close returns it unacked, which 4.3 counts
    // as a failed delivery like a crash (measured on 4.3.6)
    fail: async (m) => {
      await rt.broker.channel.cancel(m.raw.fields.consumerTag); // (the consumer of this delivery, on the default channel)
      m.nack(true);
      rt.emit('consumer', { messageId: m.messageId, queue, status: 'nacked' });
      await rt.close();
      await flushed();
      process.exit(0);
    },
  },
});
