/**
 * The retry-dlq producer. It runs in the lab's own process (only the consumer needs to be a
 * separate one; an extra process would only delay the consumer's start): it publishes the three
 * orders to orders.work one by one, each waiting for the broker's confirm (mandatory, persistent).
 * With --out DIR its events are kept as DIR/producer.out.txt, like a child's output.
 */
import type { LabContext } from '../../src/lab.js';
import type { LabEvent } from '../../src/log/events.js';
import { keepEvents } from '../../src/report/out-files.js';
import { fieldsOfOrder, orderBody, ORDERS, publishProps, SEED_FIELDS } from './orders.js';

export async function produceOrders(ctx: LabContext, queue: string): Promise<LabEvent[]> {
  const events: LabEvent[] = [];
  try {
    for (const order of ORDERS) {
      const started = ctx.now();
      await ctx.broker.sendConfirmed(queue, orderBody(order), publishProps(order));
      const durationMs = Math.round(ctx.now() - started);
      events.push(ctx.log.emit('producer', { ...SEED_FIELDS, ...fieldsOfOrder(order), destination: queue, routingKey: queue, durationMs, status: 'confirmed' }));
    }
    const confirmed = events.length;
    events.push(ctx.log.emit('producer', { ...SEED_FIELDS, destination: queue, confirmed, status: 'done' }));
  } finally {
    keepEvents(ctx.outDir, 'producer', events);
  }
  return events;
}
