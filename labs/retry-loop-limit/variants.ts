/**
 * TEST ONLY: retry-loop-limit's broken variants (declared in meta.ts; MQLAB_FAULT=retry-loop-limit:<variant>,
 * src/lab/fault.ts): the seams that apply them. lab.ts reads as the correct experiment.
 */
import { type LabContext, declareTopology, closeChannel, readCount, type Count } from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import { WAIT_TTL_MS, names, topology } from './names.js';

export const variants = [
  {
    name: 'count-missing-as-zero',
    breaks: 'an absent x-delivery-count is recorded as 0',
    fails: ['loopDeliveryCounts'],
  },
  {
    name: 'no-delivery-limit',
    breaks: 'the work queue is declared without x-delivery-limit',
    fails: ['requeuesUntilDeadLetter', 'deadLetterReason', 'cycleAfterLimit', 'freshLimitCycle'],
  },
  {
    name: 'wait-by-consumer',
    breaks: 'the wait queue has no TTL: a worker rejects each letter back instead (a client reject in the loop)',
    fails: ['cycleAfterLimit', 'freshLimitCycle'],
  },
] as const;

/** the topology a broken variant declares over the engine's */
export async function declareBroken(ctx: LabContext<unknown, Fault>): Promise<void> {
  const noLimit = ctx.fault('no-delivery-limit');
  const byConsumer = ctx.fault('wait-by-consumer');
  if (!noLimit && !byConsumer) return;
  const t = topology(ctx.names, !byConsumer);
  const work = names(ctx.names).work;
  if (noLimit) for (const q of t.queues) if (q.name === work) delete q.args?.['x-delivery-limit'];
  await declareTopology(ctx.broker, t);
}

/** wait-by-consumer: a worker on the wait queue that rejects (requeue=false) each letter after the TTL; returns its stop */
export async function waitWorker(ctx: LabContext<unknown, Fault>): Promise<() => Promise<void>> {
  if (!ctx.fault('wait-by-consumer')) return async () => {};
  const channel = await ctx.broker.newChannel();
  const c = await ctx.broker.consume(
    names(ctx.names).wait,
    async (m) => {
      await ctx.sleep(WAIT_TTL_MS);
      m.reject(false);
    },
    { prefetch: 10, channel },
  );
  return async () => {
    await c.cancel();
    await closeChannel(channel);
  };
}

/** the header reader: as the broker sent it, or (broken) an absent header read as 0 */
export const countReader =
  (ctx: LabContext<unknown, Fault>) =>
  (v: unknown): Count => {
    const c = readCount(v);
    return c === 'absent' && ctx.fault('count-missing-as-zero') ? 0 : c;
  };
