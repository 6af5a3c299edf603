/**
 * The business side: an order row and its outbox row in ONE transaction. Nothing is published here —
 * the relay publishes what committed. An order whose transaction fails leaves neither row.
 */
import { type LabContext, LabError } from '../../src/kit/index.js';
import { ORDERS, eventIdOf, type OutboxNames } from './names.js';
import type { Fault } from './meta.js';
import type { OutboxSteps } from './variants.js';

export interface Placed {
  orderId: string;
  committed: boolean;
  error?: string;
}

class Declined extends Error {}

export async function placeOrders(
  ctx: LabContext<unknown, Fault>,
  name: OutboxNames,
  steps: Pick<OutboxSteps, 'inTransaction'>,
): Promise<Placed[]> {
  const placed: Placed[] = [];
  for (const o of ORDERS) {
    const eventId = eventIdOf(o.orderId);
    const payload = JSON.stringify({ eventId, orderId: o.orderId, amount: o.amount });
    try {
      await ctx.db.begin(async (sql) => {
        await sql`INSERT INTO ${sql(name.orders)} (order_id, amount) VALUES (${o.orderId}, ${o.amount})`;
        await sql`INSERT INTO ${sql(name.outbox)} (event_id, order_id, payload) VALUES (${eventId}, ${o.orderId}, ${payload})`;
        await steps.inTransaction(() =>
          ctx.broker.sendConfirmed(name.queue, payload, {
            messageId: eventId,
            headers: { eventId, orderId: o.orderId },
          }),
        );
        // the business rule fails after both rows were written: the transaction rolls back as a whole
        if (!o.commits) throw new Declined(`payment declined for ${o.orderId}`);
      });
      placed.push({ orderId: o.orderId, committed: true });
      ctx.log.emit('business', { orderId: o.orderId, eventId, status: 'committed_with_outbox_row' });
    } catch (err) {
      if (!(err instanceof Declined))
        throw new LabError(`the transaction of ${o.orderId} failed unexpectedly: ${(err as Error).message}`);
      placed.push({ orderId: o.orderId, committed: false, error: err.message });
      ctx.log.emit('business', { orderId: o.orderId, eventId, reason: err.message, status: 'rolled_back' });
    }
  }
  return placed;
}
