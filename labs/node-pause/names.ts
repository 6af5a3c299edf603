/**
 * The node-pause lab's names and constants.
 *
 *   producer A ──confirm──▶ node L (leads np.stream) ── SIGSTOP … SIGCONT
 *   producer B ──confirm──▶ node M (majority)      ─── np.stream (quorum, 3 replicas)
 *                            node K (majority)
 *   resend (majority node) every id without a confirm; consumer (majority) drains into the history
 *
 * The queue is not in the topology: the lab deletes and declares it through the node it will freeze
 * (x-queue-leader-locator client-local), never node 1, which the engine's connection and the
 * management API use.
 */
import type { Names } from '../../src/kit/index.js';

export const CLUSTER_NODES = 3;

export const names = (n: Names) => ({ queue: n.q('np.stream') });

export const queueArguments = {
  'x-queue-type': 'quorum',
  'x-quorum-initial-group-size': CLUSTER_NODES,
  'x-queue-leader-locator': 'client-local',
} as const;
