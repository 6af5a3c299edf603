/**
 * The two trail queues, consumed: every dead letter of the work queue (trail) and every letter that
 * left the wait queue (expired-trail), each acked and kept with its death reason, so the lab can
 * wait for "the delivery_limit copy of message m" or "m left the wait queue after its limit".
 */
import { type LabContext, closeChannel, deathCount, deferred, newestDeath } from '../../src/kit/index.js';

/** the message died in `queue` with reason delivery_limit at some point of its history */
export const limitedIn = (headers: Record<string, unknown>, queue: string) =>
  deathCount(headers, queue, 'delivery_limit') > 0;

export interface Trail {
  /** resolves with the newest death's reason when the first copy of `id` whose history has a delivery_limit in `queue` arrives */
  afterLimit(id: string): Promise<string>;
  /** reasons of every copy of `id`, in arrival order */
  reasons(id: string): string[];
  close(): Promise<void>;
}

export async function watchTrail(ctx: LabContext, queue: string, work: string): Promise<Trail> {
  const seen = new Map<string, string[]>();
  const waits = new Map<string, ReturnType<typeof deferred<string>>>();
  const wait = (id: string) => waits.get(id) ?? waits.set(id, deferred<string>()).get(id)!;
  const channel = await ctx.broker.newChannel();
  const c = await ctx.broker.consume(
    queue,
    (m) => {
      m.ack();
      const id = String(m.messageId);
      const reason = newestDeath(m.headers)?.reason ?? 'none';
      seen.set(id, [...(seen.get(id) ?? []), reason]);
      ctx.log.emit('trail', { queue, messageId: id, reason, status: 'received' });
      if (limitedIn(m.headers, work)) wait(id).resolve(reason);
    },
    { prefetch: 20, channel },
  );
  return {
    afterLimit: (id) => wait(id).promise,
    reasons: (id) => seen.get(id) ?? [],
    async close() {
      await c.cancel();
      await closeChannel(channel);
    },
  };
}
