/**
 * The order statements of order-timeout. Every timestamp is the database's (clock_timestamp()),
 * and the close is a conditional UPDATE: only a CREATED order past its deadline closes.
 * The faults drop one guard each (MQLAB_FAULT, for the broken-run tests).
 */
import type { Sql } from 'postgres';
import type { OrderNames } from './names.js';
import { must } from '../../src/kit/index.js';

export interface Guards {
  status: boolean;
  deadline: boolean;
}

/** the order and its pending task, in one transaction; the deadline is `delayMs` from the database's now */
export async function createOrder(db: Sql, name: OrderNames, id: string, delayMs: number): Promise<void> {
  await db.begin(async (tx) => {
    const [created] = await tx<{ deadline: Date }[]>`
      INSERT INTO ${tx(name.orders)}(id, status, deadline, changed_by)
      VALUES (${id}, 'CREATED', clock_timestamp() + ${delayMs} * interval '1 millisecond', 'create') RETURNING deadline`;
    const { deadline } = must(created, `the deadline of the new order ${id}`);
    await tx`INSERT INTO ${tx(name.tasks)}(order_id, due_at) VALUES (${id}, ${deadline})`;
  });
}

/** the payment: only a CREATED order can be paid; returns the rows it changed */
export async function pay(db: Sql, name: OrderNames, id: string): Promise<number> {
  const r =
    await db`UPDATE ${db(name.orders)} SET status = 'PAID', paid_at = clock_timestamp(), changed_by = 'payment' WHERE id = ${id} AND status = 'CREATED'`;
  return r.count;
}

/** an operator gives the customer more time: deadline and pending task move together */
export async function extendDeadline(db: Sql, name: OrderNames, id: string, ms: number): Promise<void> {
  await db.begin(async (tx) => {
    await tx`UPDATE ${tx(name.orders)} SET deadline = deadline + ${ms} * interval '1 millisecond', changed_by = 'operator' WHERE id = ${id} AND status = 'CREATED'`;
    await tx`UPDATE ${tx(name.tasks)} SET due_at = due_at + ${ms} * interval '1 millisecond' WHERE order_id = ${id}`;
  });
}

/**
 * The consumer's timestamps stay the database's text (microseconds): a JS Date keeps milliseconds,
 * and a payment in the same millisecond as the UPDATE's start then reads as after it (observe.ts's
 * paymentBetweenReadAndUpdate could fail so, by chance, in broken and correct runs alike).
 */
type DbTime = string;

interface Read {
  status: string;
  readAt: DbTime;
}

export async function readOrder(db: Sql, name: OrderNames, id: string): Promise<Read | undefined> {
  const [row] = await db`SELECT status, clock_timestamp()::text AS read_at FROM ${db(name.orders)} WHERE id = ${id}`;
  return row ? { status: row.status as string, readAt: row.read_at as DbTime } : undefined;
}

/** UPDATE … WHERE status = 'CREATED' AND deadline <= now(); returns the rows it changed and when it ran */
export async function closeIfDue(
  db: Sql,
  name: OrderNames,
  id: string,
  actor: string,
  g: Guards,
): Promise<{ rows: number; at: DbTime }> {
  const status = g.status ? db`AND status = 'CREATED'` : db``;
  const deadline = g.deadline ? db`AND deadline <= now()` : db``;
  const [r] = await db`
    WITH u AS (
      UPDATE ${db(name.orders)} SET status = 'CLOSED', closed_at = clock_timestamp(), closed_by = ${actor}, changed_by = ${actor}
      WHERE id = ${id} ${status} ${deadline} RETURNING 1)
    SELECT (SELECT count(*) FROM u)::int AS rows, statement_timestamp()::text AS at`;
  const closed = must(r, `the close summary of ${id}`);
  return { rows: closed.rows as number, at: closed.at as DbTime };
}

/**
 * one row per check delivery: what the consumer read and when, what its UPDATE changed and when it
 * started. The times go in as text (`::text::timestamptz`): a timestamptz parameter would pass
 * through a JS Date and lose its microseconds.
 */
export async function recordCheck(
  db: Sql,
  name: OrderNames,
  id: string,
  redelivered: boolean,
  read: Read,
  closed: { rows: number; at: DbTime },
): Promise<void> {
  await db`
    INSERT INTO ${db(name.checks)}(order_id, redelivered, read_status, read_at, updated_rows, update_at)
    VALUES (${id}, ${redelivered}, ${read.status}, ${read.readAt}::text::timestamptz, ${closed.rows}, ${closed.at}::text::timestamptz)`;
}

/** the pending task is done once its order is no longer CREATED (closed or paid) */
export async function settleTask(db: Sql, name: OrderNames, id: string, by: string): Promise<void> {
  await db`
    UPDATE ${db(name.tasks)} SET done_at = clock_timestamp(), done_by = ${by}
    WHERE order_id = ${id} AND done_at IS NULL AND EXISTS (SELECT 1 FROM ${db(name.orders)} WHERE id = ${id} AND status <> 'CREATED')`;
}

/** the sweeper's query: checks that are due and never settled (their message late, lost or early) */
export async function dueTasks(db: Sql, name: OrderNames): Promise<string[]> {
  const rows =
    await db`SELECT order_id FROM ${db(name.tasks)} WHERE done_at IS NULL AND due_at <= now() ORDER BY order_id`;
  return rows.map((r) => r.order_id as string);
}

/** ms until the last pending task is due (0 when none is pending or all are due) */
export async function msUntilLastDue(db: Sql, name: OrderNames): Promise<number> {
  const [last] = await db`
    SELECT coalesce(greatest(0, extract(epoch FROM max(due_at) - clock_timestamp()) * 1000), 0)::float8 AS ms
    FROM ${db(name.tasks)} WHERE done_at IS NULL`;
  return Math.ceil(Number(must(last, 'the time until the last pending task').ms));
}
