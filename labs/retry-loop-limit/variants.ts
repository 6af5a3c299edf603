/**
 * TEST ONLY: retry-loop-limit's broken variants (declared in meta.ts; MQLAB_FAULT=retry-loop-limit:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: a replaced step (`LoopSteps`, lab.ts), the
 * topology declared without an argument, or a worker that runs beside the lab. lab.ts reads as the
 * correct experiment.
 */
import { closeChannel, withoutQueueArgs as without, type VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { LoopSteps } from './lab.js';
import { WAIT_TTL_MS, names } from './names.js';

export const variants: VariantsOf<typeof meta, LoopSteps> = {
  // an absent header read as 0
  'count-missing-as-zero': (s) => ({
    readCount: (v) => {
      const c = s.readCount(v);
      return c === 'absent' ? 0 : c;
    },
  }),
  // the work queue declared without x-delivery-limit
  'no-delivery-limit': {
    topology: (t, n) =>
      without(
        t,
        (q) => q === names(n).work,
        (k) => k === 'x-delivery-limit',
      ),
  },
  // the wait queue has no TTL: a worker rejects each letter back instead (a client reject in the loop)
  'wait-by-consumer': {
    topology: (t, n) =>
      without(
        t,
        (q) => q === names(n).wait,
        (k) => k === 'x-message-ttl',
      ),
    during: async (ctx) => {
      const channel = await ctx.broker.newChannel();
      const worker = await ctx.broker.consume(
        names(ctx.names).wait,
        async (m) => {
          await ctx.sleep(WAIT_TTL_MS);
          m.reject(false);
        },
        { prefetch: 10, channel },
      );
      return async () => {
        await worker.cancel();
        await closeChannel(channel);
      };
    },
  },
};
