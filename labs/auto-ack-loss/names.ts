/** Every name the auto-ack-loss lab touches, its topology, schema and reset SQL. */
import type { Names, Topology } from '../../src/kit/index.js';

/** the run's sizes (meta's text and the lab both read them here) */
export const MESSAGES = 20;
export const PREFETCH = 10;
export const CRASH_AFTER = 5;
/** the third consumer's prefetch, and how many messages wait for it */
export const FORGET_PREFETCH = 5;
export const FORGET_MESSAGES = 10;
/** a consumer's business work per message, before its row is committed */
export const WORK_MS = 20;
/** no delivery for this long: the broker has sent the forgetting consumer what its prefetch allows */
export const IDLE_MS = 300;
/**
 * The waits the experiment makes (the bench's floor): the work of every row committed — CRASH_AFTER per crashed
 * consumer, the rest of the manual queue in the second — and the forgetting consumer's quiet period.
 */
export const FLOOR_MS = (2 * CRASH_AFTER + (MESSAGES - CRASH_AFTER)) * WORK_MS + IDLE_MS;

export function names(n: Names) {
  return {
    /** durable quorum queues: durability does not cover the consumer side */
    autoQueue: n.q('me12.autoack.orders'),
    manualQueue: n.q('me12.manualack.orders'),
    forgetQueue: n.q('me12.noack.forgotten'),
    rows: n.t('autoack_effect'),
  };
}

export type AckNames = ReturnType<typeof names>;

export const topology = (n: Names): Topology => {
  const name = names(n);
  return { queues: [{ name: name.autoQueue }, { name: name.manualQueue }, { name: name.forgetQueue }] };
};

/** one row per processed message and phase; the key makes a redelivered message a no-op */
export const schema = (n: Names) => `
CREATE TABLE IF NOT EXISTS ${names(n).rows}(
  phase text NOT NULL, message_id text NOT NULL, process text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (phase, message_id));`;

export const reset = (n: Names) => `DELETE FROM ${names(n).rows};`;

export type Phase = 'auto' | 'manual' | 'forget';

export const queueOf = (name: AckNames, phase: Phase) =>
  ({ auto: name.autoQueue, manual: name.manualQueue, forget: name.forgetQueue })[phase];
