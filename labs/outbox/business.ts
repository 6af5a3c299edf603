/**
 * The business side: an order row and its outbox row in ONE transaction. Nothing is published here —
 * the relay publishes what committed. An order whose transaction fails leaves neither row.
 */
import type { TransactionSql } from 'postgres';
import { type LabContext, LabError } from '../../src/kit/index.js';
import { ORDERS, eventIdOf, type OutboxNames } from './names.js';

/** the steps of the outbox a broken variant may replace (variants.ts, TEST ONLY) */
export interface OutboxSteps {
  /** in the business transaction: the order row and its outbox row (nothing is published: the relay does that) */
  writeOrder(sql: TransactionSql, name: OutboxNames, row: OutboxRow): Promise<void>;
  /** a second relay publishes what the first left unsent */
  secondRelay(run: () => Promise<void>): Promise<void>;
  /** the consumer claims the event id before its effect */
  dedupe: boolean;
}

/** one order and its event, as the business transaction writes them */
interface OutboxRow {
  orderId: string;
  amount: number;
  eventId: string;
  payload: string;
}

/** the order row and its outbox row, in the caller's transaction */
export async function writeOrder(sql: TransactionSql, name: OutboxNames, r: OutboxRow): Promise<void> {
  await sql`INSERT INTO ${sql(name.orders)} (order_id, amount) VALUES (${r.orderId}, ${r.amount})`;
  await sql`INSERT INTO ${sql(name.outbox)} (event_id, order_id, payload) VALUES (${r.eventId}, ${r.orderId}, ${r.payload})`;
}

interface Placed {
  orderId: string;
  committed: boolean;
  error?: string;
}

class Declined extends Error {}

export async function placeOrders(
  ctx: LabContext,
  name: OutboxNames,
  steps: Pick<OutboxSteps, 'writeOrder'>,
): Promise<Placed[]> {
  const placed: Placed[] = [];
  for (const o of ORDERS) {
    const eventId = eventIdOf(o.orderId);
    const payload = JSON.stringify({ eventId, orderId: o.orderId, amount: o.amount });
    try {
      await ctx.db.begin(async (sql) => {
        await steps.writeOrder(sql, name, { orderId: o.orderId, amount: o.amount, eventId, payload });
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
