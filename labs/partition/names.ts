/**
 * The partition lab's names and constants.
 *
 *   producer A ──confirm──▶ node L (leads pt.stream) ─┐
 *   producer B ──confirm──▶ node M (majority)      ───┼─ pt.stream (quorum, 3 replicas)
 *                            node K (majority)     ───┘
 *   cut: L ✂ {M, K} (Erlang distribution, both ways; AMQP to every node stays up), then heal
 *   resend (majority node) every id without a confirm; consumer (majority) drains into the history
 *   pt.held (quorum, led by node 1): its one message held by a consumer on node L (prefetch 1, no ack); a
 *   consumer on node 1 gets it when the leader gives it back (at once, or after consumer_disconnected_timeout)
 *
 * The queues are not in the topology: the lab deletes and declares pt.stream through the node it will
 * cut off (x-queue-leader-locator client-local), never node 1, which the engine's connection and the
 * management API use (they stay on the majority side); pt.held through node 1.
 */
import type { Names } from '../../src/kit/index.js';

export const CLUSTER_NODES = 3;

export const names = (n: Names) => ({ queue: n.q('pt.stream'), held: n.q('pt.held') });

export const queueArguments = {
  'x-queue-type': 'quorum',
  'x-quorum-initial-group-size': CLUSTER_NODES,
  'x-queue-leader-locator': 'client-local',
} as const;

/** pt.held: declared through node 1, which then leads it; the timeout only where the broker has it (4.3.0+) */
export const heldQueueArguments = (disconnectedTimeoutMs: number | null) => ({
  ...queueArguments,
  ...(disconnectedTimeoutMs === null ? {} : { 'x-consumer-disconnected-timeout': disconnectedTimeoutMs }),
});
