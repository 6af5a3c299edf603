/**
 * One compensation attempt: release a reservation and give its stock back, in one transaction.
 * The first statement claims the release (state RESERVED → RELEASED); stock is added only when
 * that changed exactly one row. Any failure inside rolls both back (postgres.js `begin`).
 */
import type { Sql, TransactionSql } from 'postgres';
import { LabError, must } from '../../src/kit/index.js';

export interface Tables {
  reservation: string;
  stock: string;
}

export interface ReleaseOutcome {
  attempt: number;
  /** rows the conditional UPDATE changed: 1 = this attempt won the release, 0 = already released */
  changed: number;
  /** rows the stock UPDATE changed (0 when the release was not won) */
  stockAdded: number;
  /** the backend (connection) that ran the transaction */
  pid: number;
  /** what whileHolding returned: in the race, the backend that waited on this attempt's row lock */
  blockedPid?: number | undefined;
}

/** how a release writes: as taught, only a RESERVED row becomes RELEASED (a broken variant changes one, variants.ts) */
export interface ReleaseRules {
  /** the UPDATE's WHERE state = 'RESERVED': the condition that makes a second release a no-op */
  onlyFromReserved: boolean;
  /** the state a release writes */
  releasedState: string;
}

export const RELEASE_RULES: ReleaseRules = { onlyFromReserved: true, releasedState: 'RELEASED' };

/**
 * `whileHolding` runs after a won release, before the stock update and the commit, while the
 * transaction still holds the row lock on the reservation (the race uses it to wait until the
 * other attempt is blocked behind that lock).
 */
export function releaseReservation(
  db: Sql,
  name: Tables,
  order: { orderId: string; sku: string },
  attempt: number,
  whileHolding?: (tx: TransactionSql) => Promise<number | undefined>,
  rules: ReleaseRules = RELEASE_RULES,
): Promise<ReleaseOutcome> {
  const state = rules.releasedState;
  return db.begin(async (tx) => {
    const released = rules.onlyFromReserved
      ? await tx`UPDATE ${tx(name.reservation)} SET state = ${state} WHERE order_id = ${order.orderId} AND state = 'RESERVED'`
      : await tx`UPDATE ${tx(name.reservation)} SET state = ${state} WHERE order_id = ${order.orderId}`;
    const pid = await backendPid(tx);
    const outcome: ReleaseOutcome = { attempt, changed: released.count, stockAdded: 0, pid };
    if (released.count !== 1) return outcome;
    if (whileHolding) outcome.blockedPid = await whileHolding(tx);
    const stock = await tx`UPDATE ${tx(name.stock)} SET available = available + 1 WHERE sku = ${order.sku}`;
    if (stock.count !== 1)
      throw new LabError(`stock row ${order.sku} missing: release of ${order.orderId} rolled back`);
    outcome.stockAdded = stock.count;
    return outcome;
  });
}

/**
 * The contrast, NOT a safe compensation: read the state, then release unconditionally. Two of these
 * racing both read RESERVED before either commits, and both give the stock back.
 */
export function checkThenRelease(
  db: Sql,
  name: Tables,
  order: { orderId: string; sku: string },
  attempt: number,
  whileHolding?: (tx: TransactionSql) => Promise<number | undefined>,
): Promise<ReleaseOutcome> {
  return db.begin(async (tx) => {
    const [row] = await tx`SELECT state FROM ${tx(name.reservation)} WHERE order_id = ${order.orderId}`;
    const pid = await backendPid(tx);
    const outcome: ReleaseOutcome = { attempt, changed: 0, stockAdded: 0, pid };
    if (row?.state !== 'RESERVED') return outcome;
    outcome.changed = (
      await tx`UPDATE ${tx(name.reservation)} SET state = 'RELEASED' WHERE order_id = ${order.orderId}`
    ).count;
    if (whileHolding) outcome.blockedPid = await whileHolding(tx);
    outcome.stockAdded = (
      await tx`UPDATE ${tx(name.stock)} SET available = available + 1 WHERE sku = ${order.sku}`
    ).count;
    return outcome;
  });
}

/** this transaction's backend pid (the database names the waiter by it) */
async function backendPid(tx: TransactionSql): Promise<number> {
  const [row] = await tx`SELECT pg_backend_pid() AS pid`;
  return Number(must(row, 'the pg_backend_pid() row').pid);
}

/**
 * Sample the database's lock table until another backend waits on a lock this transaction
 * holds; returns that backend's pid. Bounded by `deadline` (performance.now() time).
 */
export async function blockedBehind(
  tx: TransactionSql,
  deadline: number,
  pause: (ms: number) => Promise<void>,
): Promise<number> {
  for (;;) {
    // pg_locks is read live on every call (pg_stat_activity would be one snapshot per transaction)
    const [waiter] =
      await tx`SELECT DISTINCT pid FROM pg_locks WHERE NOT granted AND pg_backend_pid() = ANY(pg_blocking_pids(pid))`;
    if (waiter) return Number(waiter.pid);
    if (performance.now() > deadline) throw new LabError('the other release attempt never waited on the row lock');
    await pause(1);
  }
}
