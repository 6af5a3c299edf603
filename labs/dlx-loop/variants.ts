/**
 * TEST ONLY: where dlx-loop's broken variants (declared in meta.ts; MQLAB_FAULT=dlx-loop:<fault>,
 * src/lab/fault.ts) apply: a replaced step of the consumers (`LoopSteps`, below), or a changed route
 * (`withFaultRoutes`):
 *   no-loop-binding     the broken queue's dead-letter route is unbound: a rejected message is dropped
 *   fixed-loop-binding  the fixed queue's dead-letter route also leads straight back to it
 * Each route is put back when the run ends, so the next run sees the lab's own topology.
 */
import { type LabContext, closeChannel, type Delivery, type Variants } from '../../src/kit/index.js';
import type { names } from './names.js';
import type { Fault } from './meta.js';

/** the steps of the two consumers a broken variant may replace */
export interface LoopSteps {
  /** how the looping queue's consumer hands a message back (a dead-letter hop) */
  returnToLoop(m: Delivery): void;
  /** the attempt the fixed consumer archives at instead of retrying */
  lastAttempt: number;
  /** the message id the archived copy carries */
  archivedId(m: Delivery): string | undefined;
  /** what becomes of the letter taken from the archive queue */
  settleArchived(letter: Delivery): void | Promise<void>;
}

export const variants = (ctx: LabContext, name: ReturnType<typeof names>): Variants<LoopSteps, Fault> => ({
  'requeue-loop': { returnToLoop: (m) => m.nack(true) },
  'off-by-one': (s) => ({ lastAttempt: s.lastAttempt + 1 }),
  'archive-without-id': { archivedId: () => undefined },
  'leave-archive': {
    // the letter goes back to the archive queue (wait until the broker shows it there)
    settleArchived: async (letter) => {
      letter.nack(true);
      for (let i = 0; i < 100 && (await ctx.broker.depth(name.fixedArchive)) === 0; i++) await ctx.sleep(20);
    },
  },
});

export async function withFaultRoutes<T>(
  ctx: LabContext<unknown, Fault>,
  name: ReturnType<typeof names>,
  run: () => Promise<T>,
): Promise<T> {
  const unbindLoop = ctx.fault('no-loop-binding');
  const extraLoop = ctx.fault('fixed-loop-binding');
  if (!unbindLoop && !extraLoop) return run();
  const ch = await ctx.broker.newChannel();
  try {
    if (unbindLoop) await ch.unbindQueue(name.business, name.dead, 'rk.dead');
    if (extraLoop) await ch.bindQueue(name.fixedBusiness, name.fixedDead, 'rk.retry');
    return await run();
  } finally {
    if (unbindLoop) await ch.bindQueue(name.business, name.dead, 'rk.dead');
    if (extraLoop) await ch.unbindQueue(name.fixedBusiness, name.fixedDead, 'rk.retry');
    await closeChannel(ch);
  }
}
