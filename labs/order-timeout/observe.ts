/**
 * What the database shows after an order-timeout run: statuses, the trigger's history of row
 * writes, the consumer's read/update timestamps and the pending tasks. Checks come from here only.
 */
import type { Sql } from 'postgres';
import type { OrderNames } from './names.js';
import { ORDERS } from './scenario.js';
import { must } from '../../src/must.js';

export interface Observed {
  status: Record<string, string>;
  /** close writes (actor check or sweeper) per order, from the history trigger */
  closeWrites: Record<string, number>;
  /** check deliveries per order, from the consumer's rows */
  checkDeliveries: Record<string, number>;
  sweptBy: string[];
  /** closes whose database time is before the order's deadline at that moment */
  closedBeforeDeadline: number;
  /** latest (close time − deadline) among closes by a check message, ms */
  latestCheckCloseMs: number;
  /** earliest (close time − deadline) among all closes, ms */
  earliestCloseMs: number;
  /** the late payment's paid_at lies after the check's read and before its UPDATE started */
  paymentBetweenReadAndUpdate: boolean;
  pendingTasks: number;
}

export async function observe(db: Sql, x: OrderNames): Promise<Observed> {
  const orders = await db`SELECT id, status FROM ${db(x.orders)}`;
  const closes = await db`
    SELECT order_id, actor, extract(epoch FROM at - deadline) * 1000 AS after_ms
    FROM ${db(x.history)} WHERE actor IN ('check', 'sweeper') AND new_status = 'CLOSED'`;
  const deliveries = await db`SELECT order_id, count(*)::int AS n FROM ${db(x.checks)} GROUP BY order_id`;
  const [between] = await db`
    SELECT bool_or(c.read_at < o.paid_at AND o.paid_at < c.update_at AND c.read_status = 'CREATED') AS ok
    FROM ${db(x.checks)} c JOIN ${db(x.orders)} o ON o.id = c.order_id WHERE c.order_id = ${ORDERS.paidDuringCheck}`;
  const [counted] = await db`SELECT count(*)::int AS pending FROM ${db(x.tasks)} WHERE done_at IS NULL`;
  const { pending } = must(counted, 'the pending task count');

  const closeWrites: Record<string, number> = {};
  for (const c of closes) closeWrites[c.order_id] = (closeWrites[c.order_id] ?? 0) + 1;
  const after = closes.map((c) => Number(c.after_ms));
  const byCheck = closes.filter((c) => c.actor === 'check').map((c) => Number(c.after_ms));
  return {
    status: Object.fromEntries(orders.map((o) => [o.id, o.status])),
    closeWrites,
    checkDeliveries: Object.fromEntries(deliveries.map((d) => [d.order_id, d.n])),
    sweptBy: [...new Set(closes.filter((c) => c.actor === 'sweeper').map((c) => c.order_id as string))].sort(),
    closedBeforeDeadline: after.filter((ms) => ms < 0).length,
    latestCheckCloseMs: byCheck.length ? Math.round(Math.max(...byCheck)) : 0,
    earliestCloseMs: after.length ? Math.round(Math.min(...after)) : 0,
    paymentBetweenReadAndUpdate: between?.ok === true,
    pendingTasks: pending,
  };
}

export const withStatus = (o: Observed, status: string) =>
  Object.entries(o.status).filter(([, s]) => s === status).map(([id]) => id).sort();
