/**
 * Every queue and table order-timeout uses (--namespace prefixes them), its topology and its SQL.
 *
 *   producer ── check (message id check-<order>) ──► me12.order.delay   x-message-ttl = delay
 *                                                        │ TTL expired → default exchange
 *                                                        ▼
 *                                                   me12.order.check ──► consumer (re-reads the order)
 */
import type { Names, Topology } from '../../src/kit/index.js';

export function names(n: Names) {
  return {
    delay: n.q('me12.order.delay'),
    check: n.q('me12.order.check'),
    orders: n.t('order_timeout_orders'),
    /** the durable fallback: one pending task per order, until its check settled it */
    tasks: n.t('order_timeout_tasks'),
    /** every row write on orders, recorded by a trigger (the database's own account) */
    history: n.t('order_timeout_history'),
    /** one row per check delivery: what the consumer read, when, what its UPDATE changed, when it was done (recorded_at) */
    checks: n.t('order_timeout_checks'),
    logFn: n.t('order_timeout_log_write'),
  };
}

export type OrderNames = ReturnType<typeof names>;

export function topology(name: OrderNames, delayMs: number): Topology {
  return {
    queues: [
      { name: name.check },
      {
        name: name.delay,
        args: { 'x-message-ttl': delayMs, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': name.check },
      },
    ],
  };
}

export const schema = (name: OrderNames) => `
CREATE TABLE IF NOT EXISTS ${name.orders}(
  id text PRIMARY KEY, status text NOT NULL, deadline timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  paid_at timestamptz, closed_at timestamptz, closed_by text, changed_by text NOT NULL);
CREATE TABLE IF NOT EXISTS ${name.tasks}(order_id text PRIMARY KEY, due_at timestamptz NOT NULL, done_at timestamptz, done_by text);
CREATE TABLE IF NOT EXISTS ${name.history}(
  seq bigserial PRIMARY KEY, order_id text NOT NULL, old_status text NOT NULL, new_status text NOT NULL,
  actor text NOT NULL, deadline timestamptz NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE TABLE IF NOT EXISTS ${name.checks}(
  seq bigserial PRIMARY KEY, order_id text NOT NULL, redelivered boolean NOT NULL, read_status text NOT NULL,
  read_at timestamptz NOT NULL, updated_rows int NOT NULL, update_at timestamptz NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT clock_timestamp());
ALTER TABLE ${name.checks} ADD COLUMN IF NOT EXISTS recorded_at timestamptz NOT NULL DEFAULT clock_timestamp();
CREATE OR REPLACE FUNCTION ${name.logFn}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ${name.history}(order_id, old_status, new_status, actor, deadline)
  VALUES (NEW.id, OLD.status, NEW.status, NEW.changed_by, NEW.deadline);
  RETURN NEW;
END $$;
CREATE OR REPLACE TRIGGER ${name.logFn} AFTER UPDATE ON ${name.orders} FOR EACH ROW EXECUTE FUNCTION ${name.logFn}();
`;

export const reset = (name: OrderNames) => `TRUNCATE ${name.orders}, ${name.tasks}, ${name.history}, ${name.checks}`;
