/**
 * One message returned to its queue `returns` times, then acked: by basic.reject(requeue) or
 * basic.nack(requeue) on a native delayed-retry queue, or by hand through the TTL ladder.
 * Each delivery's time (this process's clock, when the broker handed it over) and headers are kept.
 */
import { type LabContext, closeChannel, type Delivery, deferred } from '../../src/kit/index.js';

interface Deliveries {
  at: number[];
  /** x-delivery-count of each delivery (absent: 0) */
  deliveryCount: number[];
  /** x-acquired-count of each delivery (absent: 0) */
  acquiredCount: number[];
}

const num = (v: unknown) => (typeof v === 'number' ? v : Number(v ?? 0) || 0);

async function consumeUntilAcked(
  ctx: LabContext,
  queue: string,
  id: string,
  onReturn: (m: Delivery, n: number) => Promise<void> | void,
  returns: number,
): Promise<Deliveries> {
  const seen: Deliveries = { at: [], deliveryCount: [], acquiredCount: [] };
  const done = deferred();
  const channel = await ctx.broker.newChannel();
  const consumer = await ctx.broker.consume(
    queue,
    async (m) => {
      seen.at.push(ctx.now());
      seen.deliveryCount.push(num(m.headers['x-delivery-count']));
      seen.acquiredCount.push(num(m.headers['x-acquired-count']));
      const n = seen.at.length;
      ctx.log.emit('consumer', {
        messageId: m.messageId,
        queue,
        delivery: n,
        deliveryCount: seen.deliveryCount.at(-1),
        status: 'received',
      });
      if (n <= returns) return onReturn(m, n);
      m.ack();
      done.resolve();
    },
    { prefetch: 1, channel },
  );
  await ctx.broker.sendConfirmed(queue, id, { messageId: id });
  await ctx.within(
    Promise.race([done.promise, consumer.failure]),
    30_000,
    `${returns + 1} deliveries of ${id} on ${queue}`,
  );
  await consumer.cancel();
  await closeChannel(channel);
  return seen;
}

/**
 * the native side: hand each delivery back (`handBack`: reject or nack, requeue=true) and let the
 * queue schedule the next delivery
 */
export function nativeReturns(
  ctx: LabContext,
  queue: string,
  handBack: (m: Delivery) => void | Promise<void>,
  returns: number,
): Promise<Deliveries> {
  return consumeUntilAcked(ctx, queue, `m-${queue.split('.').pop()}`, handBack, returns);
}

/** the ladder side: republish (confirmed) to the tier for attempt n, then ack the original */
export function ladderReturns(
  ctx: LabContext,
  work: string,
  exchange: string,
  tiers: number,
  returns: number,
): Promise<Deliveries> {
  return consumeUntilAcked(
    ctx,
    work,
    'm-ladder',
    async (m, n) => {
      await ctx.broker.publishConfirmed(exchange, `tier-${Math.min(n, tiers)}`, m.body, {
        messageId: m.messageId,
        headers: { attempt: n + 1 },
      });
      m.ack();
    },
    returns,
  );
}
