/**
 * TEST ONLY: dlx-loop's broken variants (declared in meta.ts; MQLAB_FAULT=dlx-loop:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: a replaced step of the consumers
 * (`LoopSteps`, lab.ts), or a route changed for the run and put back when it ends, so the next run
 * sees the lab's own topology:
 *   no-loop-binding     the broken queue's dead-letter route is unbound: a rejected message is dropped
 *   fixed-loop-binding  the fixed queue's dead-letter route also leads straight back to it
 */
import { closeChannel, type LabContext, type VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { LoopSteps } from './lab.js';
import { names } from './names.js';

type Route = [queue: string, exchange: string, key: string];

/** `route` bound (or unbound) for the run, and back as it was when the run ends */
const routeChanged = (route: (name: ReturnType<typeof names>) => Route, bound: boolean) => ({
  during: async (ctx: LabContext) => {
    const r = route(names(ctx.names));
    const ch = await ctx.broker.newChannel();
    await (bound ? ch.bindQueue(...r) : ch.unbindQueue(...r));
    return async () => {
      await (bound ? ch.unbindQueue(...r) : ch.bindQueue(...r));
      await closeChannel(ch);
    };
  },
});

export const variants: VariantsOf<typeof meta, LoopSteps> = {
  'requeue-loop': () => ({ returnToLoop: (m) => m.nack(true) }),
  'off-by-one': (s) => ({ lastAttempt: s.lastAttempt + 1 }),
  'archive-without-id': () => ({ archivedId: () => undefined }),
  'leave-archive': (_, ctx) => ({
    // the letter goes back to the archive queue (wait until the broker shows it there)
    settleArchived: async (letter) => {
      letter.nack(true);
      const archive = names(ctx.names).fixedArchive;
      for (let i = 0; i < 100 && (await ctx.broker.depth(archive)) === 0; i++) await ctx.sleep(20);
    },
  }),
  'no-loop-binding': routeChanged((name) => [name.business, name.dead, 'rk.dead'], false),
  'fixed-loop-binding': routeChanged((name) => [name.fixedBusiness, name.fixedDead, 'rk.retry'], true),
};
