/**
 * The consuming side of outbox: one transaction per delivery that first claims the event id in the
 * processed table (a conflict means duplicate: skip), then writes the business effect; ack after commit.
 *
 * Test only (MQLAB_FAULT=outbox:no-dedupe): the consumer writes the effect without the claim.
 */
import { type LabContext, deferred, text } from '../../src/kit/index.js';
import type { OutboxNames } from './names.js';
import type { OutboxSteps } from './business.js';

interface Consumed {
  eventId: string;
  orderId: string;
  redelivered: boolean;
  outcome: 'business_committed' | 'duplicate_skipped';
}

export async function consumeAll(
  ctx: LabContext,
  name: OutboxNames,
  count: number,
  { dedupe }: Pick<OutboxSteps, 'dedupe'>,
): Promise<Consumed[]> {
  const seen: Consumed[] = [];
  const all = deferred();
  const consumer = await ctx.broker.consume(
    name.queue,
    async (m) => {
      const eventId = text(m.headers.eventId ?? m.messageId);
      const orderId = text(m.headers.orderId);
      // which publish this copy came from (relay.ts): shown, never used to dedupe
      const copy = m.headers.publishId === undefined ? {} : { publishId: text(m.headers.publishId) };
      ctx.log.emit('consumer', { eventId, orderId, ...copy, redelivered: m.redelivered, status: 'received' });
      const outcome = await ctx.db.begin(async (sql) => {
        if (dedupe) {
          const claimed =
            await sql`INSERT INTO ${sql(name.processed)} (event_id) VALUES (${eventId}) ON CONFLICT DO NOTHING RETURNING event_id`;
          if (claimed.length === 0) return 'duplicate_skipped' as const;
        }
        await sql`INSERT INTO ${sql(name.effects)} (event_id, order_id) VALUES (${eventId}, ${orderId})`;
        return 'business_committed' as const;
      });
      m.ack();
      seen.push({ eventId, orderId, redelivered: m.redelivered, outcome });
      ctx.log.emit('consumer', { eventId, orderId, ...copy, status: outcome });
      if (seen.length === count) all.resolve();
    },
    { prefetch: 1, channel: await ctx.broker.newChannel() },
  );
  await ctx.within(Promise.race([all.promise, consumer.failure]), 15_000, `${count} deliveries on ${name.queue}`);
  await consumer.cancel();
  return seen;
}
