/**
 * The three order.created events of the retry-dlq demo (docs/labs/retry-dlq.md), how the producer
 * puts them on the wire, and how both processes describe them in key=value events (the demo's field order).
 */
import type { Options } from 'amqplib';
import { type Delivery, must, text } from '../../src/kit/index.js';

const EVENT_TYPE = 'order.created';
const SCHEMA_VERSION = 1;

/** the leading fields of every event line: [consumer] timestamp=… level=INFO service=order-service product=rabbitmq lab=… */
export const SERVICE_FIELDS = { level: 'INFO', service: 'order-service', product: 'rabbitmq' } as const;

interface Order {
  messageId: string;
  aggregateId: string;
  traceId: string;
  /** order-poison carries 0, which the business table's CHECK refuses on every attempt */
  quantity: number;
}

export const ORDERS: readonly Order[] = [
  {
    messageId: '01JMQ000000000000000000001',
    aggregateId: 'order-1001',
    traceId: '00000000000000000000000000000001',
    quantity: 2,
  },
  {
    messageId: '01JMQ000000000000000000002',
    aggregateId: 'order-1002',
    traceId: '00000000000000000000000000000002',
    quantity: 1,
  },
  {
    messageId: '01JMQ00000000000000000000P',
    aggregateId: 'order-poison',
    traceId: '0000000000000000000000000000000P',
    quantity: 0,
  },
];

/** what the parent expects (the consumer never looks at this: it just fails on the poison) */
export const HEALTHY = ORDERS.filter((o) => o.quantity > 0);
export const POISON = must(
  ORDERS.find((o) => o.quantity <= 0),
  'the poison order',
);

/** event fields that identify a message: messageId eventType schemaVersion aggregateId traceId correlationId */
interface MessageFields {
  messageId: string;
  eventType: string;
  schemaVersion: string;
  aggregateId: string;
  traceId: string;
  correlationId: string;
}

export function orderBody(o: Order): string {
  return JSON.stringify({ orderId: o.aggregateId, quantity: o.quantity });
}

export function publishProps(o: Order): Options.Publish {
  return {
    messageId: o.messageId,
    correlationId: o.aggregateId,
    type: EVENT_TYPE,
    contentType: 'application/json',
    headers: { eventType: EVENT_TYPE, schemaVersion: SCHEMA_VERSION, aggregateId: o.aggregateId, traceId: o.traceId },
  };
}

export function fieldsOfOrder(o: Order): MessageFields {
  return {
    messageId: o.messageId,
    eventType: EVENT_TYPE,
    schemaVersion: String(SCHEMA_VERSION),
    aggregateId: o.aggregateId,
    traceId: o.traceId,
    correlationId: o.aggregateId,
  };
}

/** the same fields, read back from what the broker delivered */
export function fieldsOfDelivery(m: Pick<Delivery, 'messageId' | 'headers' | 'raw'>): MessageFields {
  const h = m.headers;
  return {
    messageId: m.messageId ?? '',
    eventType: String(h.eventType ?? m.raw.properties.type ?? ''),
    schemaVersion: text(h.schemaVersion),
    aggregateId: text(h.aggregateId),
    traceId: text(h.traceId),
    correlationId: String(m.raw.properties.correlationId ?? ''),
  };
}
