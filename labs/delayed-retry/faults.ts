/**
 * TEST ONLY: the delayed-retry variants that add routes (MQLAB_FAULT=delayed-retry:<fault>, src/fault.ts).
 *   native-bound         the native reject queue also bound to an exchange (amq.direct), as a ladder's
 *                        queue would be: the native design is no longer one queue and nothing else
 *   work-bound-to-retry  the ladder's work queue bound to its retry exchange with the first tier's key:
 *                        the first retry comes back at once, beside the copy that waits in tier 1
 * Each route is removed when the run ends, so the next run sees the lab's own topology.
 */
import type { LabContext } from '../../src/lab.js';
import type { RetryNames } from './names.js';
import { closeChannel } from '../../src/broker/broker.js';

export async function withFaultRoutes<T>(ctx: LabContext, x: RetryNames, run: () => Promise<T>): Promise<T> {
  const routes = [
    ...(ctx.fault('native-bound') ? [{ queue: x.reject, exchange: 'amq.direct', key: x.reject }] : []),
    ...(ctx.fault('work-bound-to-retry') ? [{ queue: x.ladderWork, exchange: x.ladderRetry, key: 'tier-1' }] : []),
  ];
  if (!routes.length) return run();
  const ch = await ctx.broker.newChannel();
  try {
    for (const r of routes) await ch.bindQueue(r.queue, r.exchange, r.key);
    return await run();
  } finally {
    for (const r of routes) await ch.unbindQueue(r.queue, r.exchange, r.key).catch(() => {});
    await closeChannel(ch);
  }
}
