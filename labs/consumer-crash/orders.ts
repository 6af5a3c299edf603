/**
 * What the producer, both consumer processes and the lab share: the order.created envelope
 * (the ids and field order of docs/labs/consumer-crash.md) and the idempotent consume step:
 * one transaction inserts the message id into processed_messages, then the business row.
 */
import type { Sql } from 'postgres';
import type { PublishProps } from '../../src/kit/index.js';
import { LAB, type CrashNames } from './names.js';

/** the consumer instance name every consumer line carries (consumer=consumer-1), in both runs */
export const CONSUMER = 'consumer-1';
/** the service fields, first on every event line after the timestamp */
export const SERVICE = { level: 'INFO', service: 'order-service', product: 'rabbitmq' } as const;

interface OrderCreated {
  messageId: string;
  eventType: 'order.created';
  schemaVersion: 1;
  aggregateId: string;
  traceId: string;
  correlationId: string;
  payload: { orderId: string; amount: number };
}

/** the lab's fixed events: 01JMQ000000000000000000001 / order-1001 / trace 000…001, then 2, 3 */
export function orderEvents(count: number): OrderCreated[] {
  return Array.from({ length: count }, (_, i) => {
    const orderId = `order-${1001 + i}`;
    return {
      messageId: `01JMQ${String(i + 1).padStart(21, '0')}`,
      eventType: 'order.created',
      schemaVersion: 1,
      aggregateId: orderId,
      traceId: String(i + 1).padStart(32, '0'),
      correlationId: orderId,
      payload: { orderId, amount: 100 * (i + 1) },
    };
  });
}

/** the envelope's fields, in the order the event lines print them */
export const envelopeFields = (e: OrderCreated) => ({
  messageId: e.messageId,
  eventType: e.eventType,
  schemaVersion: e.schemaVersion,
  aggregateId: e.aggregateId,
  traceId: e.traceId,
  correlationId: e.correlationId,
});

/** AMQP properties: the broker-visible copy of the envelope; attempt is the application's retry count */
export const publishProps = (e: OrderCreated): PublishProps => ({
  messageId: e.messageId,
  type: e.eventType,
  correlationId: e.correlationId,
  contentType: 'application/json',
  headers: { traceId: e.traceId, schemaVersion: e.schemaVersion, attempt: 1 },
});

export function parseEnvelope(body: string): OrderCreated {
  const e = JSON.parse(body) as OrderCreated;
  if (e?.eventType !== 'order.created' || typeof e.messageId !== 'string' || typeof e.payload?.orderId !== 'string') {
    throw new Error(`not an order.created envelope: ${body.slice(0, 120)}`);
  }
  return e;
}

type Outcome = 'business_committed' | 'duplicate_skipped';

/**
 * one transaction: claim the message id (a conflict means duplicate), then write the order, commit.
 * `noDedupe` (TEST ONLY, MQLAB_FAULT) skips the claim: a redelivery writes the order again.
 */
export async function processOnce(db: Sql, name: CrashNames, e: OrderCreated, noDedupe = false): Promise<Outcome> {
  return db.begin(async (sql) => {
    const claimed = noDedupe
      ? [e]
      : await sql`
      INSERT INTO ${sql(name.processed)} (lab, message_id, consumer) VALUES (${LAB}, ${e.messageId}, ${CONSUMER})
      ON CONFLICT (lab, message_id) DO NOTHING RETURNING message_id`;
    if (claimed.length === 0) return 'duplicate_skipped' as const;
    await sql`
      INSERT INTO ${sql(name.orders)} (lab, order_id, message_id, trace_id, amount)
      VALUES (${LAB}, ${e.payload.orderId}, ${e.messageId}, ${e.traceId}, ${e.payload.amount})`;
    return 'business_committed' as const;
  });
}
