/**
 * The retry-dlq producer. It runs in the lab's own process (only the consumer needs to be a
 * separate one; an extra process would only delay the consumer's start): it publishes the three
 * orders to orders.work one by one, each waiting for the broker's confirm (mandatory, persistent);
 * a nack or a return is recorded as such (the lab's `confirmed` counts only the broker's acks).
 * With --out DIR its events are kept as DIR/producer.out.txt, like a child's output.
 */
import { type LabContext, LabError, type LabEvent, keepEvents } from '../../src/kit/index.js';
import { fieldsOfOrder, orderBody, ORDERS, publishProps, SERVICE_FIELDS } from './orders.js';

/** the producer's step a broken variant may replace (variants.ts, TEST ONLY) */
export interface ProducerSteps {
  /** the routing key an order is published with: the work queue's */
  routingKey(order: (typeof ORDERS)[number], queue: string): string;
}

export async function produceOrders(ctx: LabContext, queue: string, steps: ProducerSteps): Promise<LabEvent[]> {
  const events: LabEvent[] = [];
  try {
    for (const order of ORDERS) {
      const started = ctx.now();
      const key = steps.routingKey(order, queue);
      // confirmed only when the broker acked the publish and returned nothing: a nack or a
      // basic.return is an event of its own, and `confirmed` counts what the broker accepted
      const status = await ctx.broker.sendConfirmed(key, orderBody(order), publishProps(order)).then(
        () => 'confirmed',
        (err: unknown) => {
          if (!(err instanceof LabError)) throw err;
          return /unroutable/.test(err.message) ? 'returned' : 'nacked';
        },
      );
      const durationMs = Math.round(ctx.now() - started);
      events.push(
        ctx.log.emit('producer', {
          ...SERVICE_FIELDS,
          ...fieldsOfOrder(order),
          destination: key,
          routingKey: key,
          durationMs,
          status,
        }),
      );
    }
    const confirmed = events.filter((e) => e.fields.status === 'confirmed').length;
    events.push(ctx.log.emit('producer', { ...SERVICE_FIELDS, destination: queue, confirmed, status: 'done' }));
  } finally {
    keepEvents(ctx.outDir, 'producer', events);
  }
  return events;
}
