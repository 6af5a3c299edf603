/**
 * The archive lab's names, topology, schema and reset (docs/labs/archive.md: the source's names, with
 * an `archive.` prefix so the lab never shares a queue with the other labs that use them).
 *
 * producer ─ archive.exchange.business ─ order.created ─────→ archive.order.business.queue
 *                                     └─ order.pay.pending ─→ archive.order.pay.timeout.queue
 *                                                               (TTL 200 ms, DLX → business/order.created)
 * archive.order.business.queue ── reject(requeue=false) ── DLX archive.exchange.dead / rk.dead
 *                                                              └→ archive.order.dead.archive.queue (the DLQ)
 * archiver process: DLQ → dead_letter_archive (or dead_letter_archive_failure) → ack
 */
import type { Names, Topology } from '../../src/kit/index.js';

/** how long an unpaid order waits in the pay-timeout queue before the broker expires it */
const PAY_TIMEOUT_MS = 200;
export const ROUTE = { created: 'order.created', payPending: 'order.pay.pending', dead: 'rk.dead' } as const;
export const STATUSES = ['ARCHIVED', 'IN_PROGRESS', 'FIXED'] as const;
export type ArchiveStatus = (typeof STATUSES)[number];

export function names(n: Names) {
  return {
    business: n.x('archive.exchange.business'),
    dead: n.x('archive.exchange.dead'),
    work: n.q('archive.order.business.queue'),
    payTimeout: n.q('archive.order.pay.timeout.queue'),
    dlq: n.q('archive.order.dead.archive.queue'),
    archive: n.t('dead_letter_archive'),
    failure: n.t('dead_letter_archive_failure'),
    statusGuard: n.t('dead_letter_archive_status_guard'),
    archivedAtIndex: n.t('dead_letter_archive_archived_at'),
  };
}

export type ArchiveNames = ReturnType<typeof names>;

export function topology(n: Names): Topology {
  const name = names(n);
  return {
    exchanges: [
      { name: name.business, type: 'direct' },
      { name: name.dead, type: 'direct' },
    ],
    queues: [
      { name: name.dlq },
      { name: name.work, args: { 'x-dead-letter-exchange': name.dead, 'x-dead-letter-routing-key': ROUTE.dead } },
      {
        name: name.payTimeout,
        args: {
          'x-message-ttl': PAY_TIMEOUT_MS,
          'x-dead-letter-exchange': name.business,
          'x-dead-letter-routing-key': ROUTE.created,
        },
      },
    ],
    bindings: [
      { queue: name.work, exchange: name.business, key: ROUTE.created },
      { queue: name.payTimeout, exchange: name.business, key: ROUTE.payPending },
      { queue: name.dlq, exchange: name.dead, key: ROUTE.dead },
    ],
  };
}

/**
 * The archive table (one row per business id; status only moves ARCHIVED → IN_PROGRESS → FIXED,
 * which a trigger enforces) and the failure table for letters the archive table refuses.
 */
export function schema(n: Names): string {
  const name = names(n);
  const statuses = STATUSES.map((s) => `'${s}'`).join(', ');
  return `
CREATE TABLE IF NOT EXISTS ${name.archive} (
  id                   bigserial PRIMARY KEY,
  business_id          text NOT NULL UNIQUE CHECK (business_id <> ''),
  message_id           text,
  payload              text NOT NULL,
  original_exchange    text NOT NULL,
  original_routing_key text NOT NULL,
  first_death_reason   text NOT NULL,
  first_death_queue    text NOT NULL,
  first_death_at       timestamptz,
  last_death_reason    text NOT NULL,
  last_death_queue     text NOT NULL,
  last_death_at        timestamptz,
  attempts             integer NOT NULL CHECK (attempts >= 1),
  status               text NOT NULL DEFAULT 'ARCHIVED' CHECK (status IN (${statuses})),
  status_changed_at    timestamptz NOT NULL DEFAULT now(),
  archived_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS ${name.archivedAtIndex} ON ${name.archive} (archived_at);
CREATE TABLE IF NOT EXISTS ${name.failure} (
  id            bigserial PRIMARY KEY,
  message_id    text UNIQUE,
  payload       text NOT NULL,
  death_history jsonb NOT NULL,
  sql_state     text NOT NULL,
  error         text NOT NULL,
  failed_at     timestamptz NOT NULL DEFAULT now()
);
CREATE OR REPLACE FUNCTION ${name.statusGuard}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status IS DISTINCT FROM OLD.status THEN
    IF NOT ((OLD.status = 'ARCHIVED' AND NEW.status = 'IN_PROGRESS') OR (OLD.status = 'IN_PROGRESS' AND NEW.status = 'FIXED')) THEN
      RAISE EXCEPTION 'status may only move ARCHIVED -> IN_PROGRESS -> FIXED, not % -> %', OLD.status, NEW.status
        USING ERRCODE = 'check_violation';
    END IF;
    NEW.status_changed_at := now();
  END IF;
  RETURN NEW;
END $$;
CREATE OR REPLACE TRIGGER ${name.statusGuard} BEFORE UPDATE OF status ON ${name.archive}
  FOR EACH ROW EXECUTE FUNCTION ${name.statusGuard}();
`;
}

/** every run starts with no archived row and no refused letter of its own namespace */
export const reset = (n: Names) => `DELETE FROM ${names(n).archive}; DELETE FROM ${names(n).failure}`;
