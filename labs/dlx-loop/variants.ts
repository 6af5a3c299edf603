/**
 * TEST ONLY: the dlx-loop variants that change routes (MQLAB_FAULT=dlx-loop:<fault>, src/fault.ts).
 *   no-loop-binding     the broken queue's dead-letter route is unbound: a rejected message is dropped
 *   fixed-loop-binding  the fixed queue's dead-letter route also leads straight back to it
 * Each route is put back when the run ends, so the next run sees the lab's own topology.
 */
import type { LabContext } from '../../src/lab.js';
import type { names } from './names.js';
import { closeChannel } from '../../src/broker/broker.js';
import type { Fault } from './faults.js';

export async function withFaultRoutes<T>(
  ctx: LabContext<unknown, Fault>,
  x: ReturnType<typeof names>,
  run: () => Promise<T>,
): Promise<T> {
  const unbindLoop = ctx.fault('no-loop-binding');
  const extraLoop = ctx.fault('fixed-loop-binding');
  if (!unbindLoop && !extraLoop) return run();
  const ch = await ctx.broker.newChannel();
  try {
    if (unbindLoop) await ch.unbindQueue(x.business, x.dead, 'rk.dead');
    if (extraLoop) await ch.bindQueue(x.fixedBusiness, x.fixedDead, 'rk.retry');
    return await run();
  } finally {
    if (unbindLoop) await ch.bindQueue(x.business, x.dead, 'rk.dead');
    if (extraLoop) await ch.unbindQueue(x.fixedBusiness, x.fixedDead, 'rk.retry');
    await closeChannel(ch);
  }
}
