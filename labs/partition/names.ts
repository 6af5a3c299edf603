/**
 * The partition lab's names and constants.
 *
 *   producer A ──confirm──▶ node L (leads pt.stream) ─┐
 *   producer B ──confirm──▶ node M (majority)      ───┼─ pt.stream (quorum, 3 replicas)
 *                            node K (majority)     ───┘
 *   cut: L ✂ {M, K} (Erlang distribution, both ways; AMQP to every node stays up), then heal
 *   resend (majority node) every id without a confirm; consumer (majority) drains into the history
 *
 * The queue is not in the topology: the lab deletes and declares it through the node it will cut
 * off (x-queue-leader-locator client-local), never node 1, which the engine's connection and the
 * management API use (they stay on the majority side).
 */
import type { Names } from '../../src/kit/index.js';

export const CLUSTER_NODES = 3;

export const names = (n: Names) => ({ queue: n.q('pt.stream') });

export const queueArguments = {
  'x-queue-type': 'quorum',
  'x-quorum-initial-group-size': CLUSTER_NODES,
  'x-queue-leader-locator': 'client-local',
} as const;
