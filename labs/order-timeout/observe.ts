/**
 * What the database shows after an order-timeout run: statuses, the trigger's history of row
 * writes, the consumer's read/update timestamps and the pending tasks. Checks come from here only.
 */
import type { Sql } from 'postgres';
import type { OrderNames } from './names.js';
import { ORDERS } from './scenario.js';
import { must, coveredMs } from '../../src/kit/index.js';

interface Observed {
  status: Record<string, string>;
  /** close writes (actor check or sweeper) per order, from the history trigger */
  closeWrites: Record<string, number>;
  /** check deliveries per order, from the consumer's rows */
  checkDeliveries: Record<string, number>;
  sweptBy: string[];
  /** closes whose database time is before the order's deadline at that moment */
  closedBeforeDeadline: number;
  /**
   * the close by a check message that came latest after its deadline once the time the consumer
   * spent on other checks meanwhile is taken off: its (close time − deadline), ms, and that busy time
   */
  latestCheckClose: LateClose;
  /** earliest (close time − deadline) among all closes, ms */
  earliestCloseMs: number;
  /** the late payment's paid_at lies after the check's read and before its UPDATE started */
  paymentBetweenReadAndUpdate: boolean;
  pendingTasks: number;
}

interface LateClose {
  /** close time − deadline */
  ms: number;
  /**
   * between the deadline and this check's read, the time the consumer was handling other checks (read →
   * recorded) or its process could run nothing, and its own read → close
   */
  busyMs: number;
}

interface Handled {
  order: string;
  readMs: number;
  doneMs: number;
}

/**
 * The consumer takes one check at a time (prefetch 1): a check due while it handles others waits
 * for them. For each close by a check, that wait — the parts of other deliveries' read → recorded
 * spans between its deadline and its own read — is measured, with the spans in which its process could
 * run nothing (`stalls`), and so is its own read → close, so the bound on lateness is one delay beyond
 * what the run itself shows the consumer was doing (a loaded machine makes every statement slower). A
 * consumer that idles before it reads (the slow-consumer variant: a timer) is neither busy nor stalled then.
 */
export function latestCheckClose(
  closes: readonly { order: string; atMs: number; deadlineMs: number }[],
  handled: readonly Handled[],
  stalls: readonly (readonly [number, number])[] = [],
): LateClose {
  let worst: LateClose | null = null;
  for (const c of closes) {
    const own = handled.filter((h) => h.order === c.order && h.readMs <= c.atMs).sort((a, b) => b.readMs - a.readMs)[0];
    const readMs = own?.readMs ?? c.atMs;
    // its own read → close after the deadline: the statements a loaded machine slows (seen: 7 ms over, load 26)
    const ownMs = Math.max(0, c.atMs - Math.max(readMs, c.deadlineMs));
    // between the deadline and its read: other checks' handling, and the spans the lab's process could
    // not run at all (another lab of `mqlab all --jobs`: 2.2 s at load 15), each instant once
    const others = handled.filter((h) => h !== own).map((h) => [h.readMs, h.doneMs] as const);
    const busyMs = ownMs + coveredMs([...others, ...stalls], c.deadlineMs, readMs);
    const late = { ms: Math.round(c.atMs - c.deadlineMs), busyMs: Math.round(busyMs) };
    if (!worst || late.ms - late.busyMs > worst.ms - worst.busyMs) worst = late;
  }
  return worst ?? { ms: 0, busyMs: 0 };
}

/** `stalls`: the spans the consumer's process ran no timer (src/core/time.ts watchStalls) */
export async function observe(
  db: Sql,
  name: OrderNames,
  stalls: readonly (readonly [number, number])[],
): Promise<Observed> {
  const orders = await db<{ id: string; status: string }[]>`SELECT id, status FROM ${db(name.orders)}`;
  const closes = await db<{ order_id: string; actor: string; after_ms: number | string }[]>`
    SELECT order_id, actor, extract(epoch FROM at - deadline) * 1000 AS after_ms
    FROM ${db(name.history)} WHERE actor IN ('check', 'sweeper') AND new_status = 'CLOSED'`;
  const deliveries = await db<
    { order_id: string; n: number }[]
  >`SELECT order_id, count(*)::int AS n FROM ${db(name.checks)} GROUP BY order_id`;
  const handled = await db<{ order_id: string; read_ms: number; done_ms: number }[]>`
    SELECT order_id, extract(epoch FROM read_at)::float8 * 1000 AS read_ms, extract(epoch FROM recorded_at)::float8 * 1000 AS done_ms FROM ${db(name.checks)}`;
  const checkCloses = await db<{ order_id: string; at_ms: number; deadline_ms: number }[]>`
    SELECT order_id, extract(epoch FROM at)::float8 * 1000 AS at_ms, extract(epoch FROM deadline)::float8 * 1000 AS deadline_ms
    FROM ${db(name.history)} WHERE actor = 'check' AND new_status = 'CLOSED'`;
  const [between] = await db<{ ok: boolean | null }[]>`
    SELECT bool_or(c.read_at < o.paid_at AND o.paid_at < c.update_at AND c.read_status = 'CREATED') AS ok
    FROM ${db(name.checks)} c JOIN ${db(name.orders)} o ON o.id = c.order_id WHERE c.order_id = ${ORDERS.paidDuringCheck}`;
  const [counted] = await db<
    { pending: number }[]
  >`SELECT count(*)::int AS pending FROM ${db(name.tasks)} WHERE done_at IS NULL`;
  const { pending } = must(counted, 'the pending task count');

  const closeWrites: Record<string, number> = {};
  for (const c of closes) closeWrites[c.order_id] = (closeWrites[c.order_id] ?? 0) + 1;
  const after = closes.map((c) => Number(c.after_ms));
  return {
    status: Object.fromEntries(orders.map((o) => [o.id, o.status])),
    closeWrites,
    checkDeliveries: Object.fromEntries(deliveries.map((d) => [d.order_id, d.n])),
    sweptBy: [...new Set(closes.filter((c) => c.actor === 'sweeper').map((c) => c.order_id))].sort(),
    closedBeforeDeadline: after.filter((ms) => ms < 0).length,
    latestCheckClose: latestCheckClose(
      checkCloses.map((c) => ({
        order: c.order_id,
        atMs: Number(c.at_ms),
        deadlineMs: Number(c.deadline_ms),
      })),
      handled.map((h) => ({ order: h.order_id, readMs: Number(h.read_ms), doneMs: Number(h.done_ms) })),
      stalls,
    ),
    earliestCloseMs: after.length ? Math.round(Math.min(...after)) : 0,
    paymentBetweenReadAndUpdate: between?.ok === true,
    pendingTasks: pending,
  };
}

export const withStatus = (o: Observed, status: string) =>
  Object.entries(o.status)
    .filter(([, s]) => s === status)
    .map(([id]) => id)
    .sort();
