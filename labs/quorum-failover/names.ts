/**
 * The quorum-failover lab's names, schema and constants.
 *
 *   producer ──confirm──▶ qf.stream (quorum, 3 replicas, leader on the node the lab kills)
 *        │ SIGKILL leader's node; reconnect to a survivor; resend every unconfirmed id
 *   consumer (survivor) ──▶ qf_received(id PRIMARY KEY, copies, redeliveries) ──ack after commit
 *
 * The queue is not in the topology: the lab deletes and declares it through the node it will
 * kill (x-queue-leader-locator client-local), so its leader is never node 1, which the engine's
 * own connection and the management API use.
 */
import type { Names } from '../../src/kit/index.js';

export const CLUSTER_NODES = 3;

export const names = (n: Names) => ({
  queue: n.q('qf.stream'),
  received: n.t('qf_received'),
});

/** copies: deliveries not flagged redelivered (a resent id is a second copy); redeliveries: the broker's own */
export const schema = (n: Names) =>
  `CREATE TABLE IF NOT EXISTS ${names(n).received}(id integer PRIMARY KEY, copies integer NOT NULL, redeliveries integer NOT NULL, first_at timestamptz NOT NULL DEFAULT now())`;

export const reset = (n: Names) => `DELETE FROM ${names(n).received}`;

export const queueArguments = {
  'x-queue-type': 'quorum',
  'x-quorum-initial-group-size': CLUSTER_NODES,
  'x-queue-leader-locator': 'client-local',
} as const;
