/**
 * publish-confirm (d), the consuming side: every copy of the event fails once (a transient downstream
 * error: reject with requeue, the broker redelivers it) and is processed on its next delivery, in one
 * transaction that first claims the event id in the dedupe table. deliveryAttempt is counted per copy
 * (eventId + publishAttempt) from the deliveries the broker made, not from a header the producer set.
 */
import { type LabContext, deferred, text } from '../../src/kit/index.js';
import type { ConfirmNames } from './names.js';

export interface Delivered {
  eventId: string;
  publishAttempt: number;
  deliveryAttempt: number;
  redelivered: boolean;
  outcome: 'transient_failure' | 'business_committed' | 'duplicate_skipped';
}

/** how the consumer takes the copies (lab.ts ConfirmSteps) */
export interface ConsumeSteps {
  /** fail each copy's first delivery (requeue) and succeed on the second */
  consumeRetry: boolean;
  /** claim the event id before the effect */
  dedupe: boolean;
}

export async function consumeEvents(
  ctx: LabContext,
  name: ConfirmNames,
  copies: number,
  { consumeRetry: retry, dedupe }: ConsumeSteps,
): Promise<Delivered[]> {
  const { db, log } = ctx;
  const seen: Delivered[] = [];
  const counts = new Map<string, number>();
  const settled = deferred();
  let acked = 0;
  const consumer = await ctx.broker.consume(
    name.events,
    async (m) => {
      const eventId = text(m.headers.eventId ?? m.messageId);
      const publishAttempt = Number(m.headers.publishAttempt ?? 0);
      const copy = `${eventId}/${publishAttempt}`;
      const deliveryAttempt = (counts.get(copy) ?? 0) + 1;
      counts.set(copy, deliveryAttempt);
      const fields = {
        eventId,
        publishAttempt,
        deliveryAttempt,
        redelivered: m.redelivered,
        deliveryCount: m.headers['x-delivery-count'],
      };
      log.emit('consumer', { ...fields, status: 'received' });
      let outcome: Delivered['outcome'];
      if (retry && deliveryAttempt === 1) {
        outcome = 'transient_failure';
        m.reject(true);
      } else {
        outcome = await db.begin(async (sql) => {
          if (dedupe) {
            const claimed =
              await sql`INSERT INTO ${sql(name.processed)} (event_id) VALUES (${eventId}) ON CONFLICT DO NOTHING RETURNING event_id`;
            if (claimed.length === 0) return 'duplicate_skipped' as const;
          }
          await sql`INSERT INTO ${sql(name.effects)} (event_id, publish_attempt, delivery_attempt) VALUES (${eventId}, ${publishAttempt}, ${deliveryAttempt})`;
          return 'business_committed' as const;
        });
        m.ack();
        if (++acked === copies) settled.resolve();
      }
      seen.push({ eventId, publishAttempt, deliveryAttempt, redelivered: m.redelivered, outcome });
      log.emit('consumer', { ...fields, status: outcome });
    },
    { prefetch: 1, channel: await ctx.broker.newChannel() },
  );
  await ctx.within(
    Promise.race([settled.promise, consumer.failure]),
    15_000,
    `${copies} cop${copies === 1 ? 'y' : 'ies'} of the event settled on ${name.events}`,
  );
  await consumer.cancel();
  return seen;
}
