/**
 * What labs that fail a node of mqlab's cluster watch, lab-agnostic: a quorum queue declared through
 * a chosen node (so it leads there), its replicas online, the leader the management API names, each
 * node's own view of the members (its own management API), and a replica reaching the leader's
 * commit index (quorum_status).
 */
import { closeConnection } from '../broker/broker.js';
import { connectAny } from '../broker/reconnect.js';
import { Management } from '../broker/management.js';
import { LabError } from '../errors.js';
import { sleep, within } from '../time.js';
import { maskUrl } from '../urls.js';
import { members, quorumQueue, type ClusterNode, type OwnCluster, type ReplicaStatus } from './cluster.js';

/** delete and declare `queue` through `url` (its leader there with x-queue-leader-locator client-local) */
export async function declareThrough(url: string, queue: string, args: Record<string, unknown>): Promise<void> {
  const { connection, channel } = await connectAny({ urls: [url], maxWaitMs: 60_000 });
  const answered = <T>(p: Promise<T>, what: string) => within(p, 60_000, `${what} ${queue} through ${maskUrl(url)}`);
  try {
    await answered(channel.deleteQueue(queue), 'the delete of');
    await answered(channel.assertQueue(queue, { durable: true, arguments: args }), 'the declare of');
  } finally {
    await closeConnection(connection);
  }
}

/** the management API's view of `queue` once `n` replicas are online and it has a leader (bounded) */
export async function replicasOnline(mgmt: Management, queue: string, n: number, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const q = await quorumQueue(mgmt, queue);
    if (q && q.online.length >= n && q.leader) return q;
    if (Date.now() > end)
      throw new LabError(`${queue} has ${q?.online.length ?? 0} of ${n} replicas online after ${timeoutMs / 1000} s`);
    await sleep(300);
  }
}

/** one node's own view of the cluster: the members it reports running, and the partitions it reports (null: it did not answer) */
export interface NodeView {
  node: string;
  running: string[];
  partitions: string[];
}

export async function viewOf(node: ClusterNode, vhost: string, timeoutMs = 3000): Promise<NodeView | null> {
  const mgmt = new Management(node.mgmtUrl, vhost);
  try {
    const m = await within(members(mgmt), timeoutMs, `the members as ${node.name} sees them`);
    return {
      node: node.name,
      running: m.filter((x) => x.running).map((x) => x.name),
      partitions: [...new Set(m.flatMap((x) => x.partitions))].sort(),
    };
  } catch {
    return null;
  }
}

/** the cut-off or frozen node's replica once it holds the leader's commit index as a follower (or the last status at the timeout) */
export async function caughtUp(
  cluster: OwnCluster,
  queue: string,
  vhost: string,
  node: string,
  timeoutMs: number,
  progress: (line: string) => void,
): Promise<ReplicaStatus[] | null> {
  const end = Date.now() + timeoutMs;
  let last: ReplicaStatus[] | null = null;
  do {
    last = await cluster
      .quorumStatus(queue, vhost)
      .catch((err: Error) => (progress(`quorum_status: ${err.message}`), last));
    const idx = replicaIndex(last, node);
    if (idx && idx.node === idx.leader && idx.state === 'follower') return last;
    progress(
      `waiting for ${node} to catch up: ${idx ? `${idx.state}, commit index ${idx.node} of the leader's ${idx.leader}` : 'not in the quorum yet'}`,
    );
    await sleep(1000);
  } while (Date.now() < end);
  return last;
}

/** the node's replica's commit index and state beside the leader's (null when either is missing) */
export function replicaIndex(
  replicas: readonly ReplicaStatus[] | null,
  node: string,
): { leader: number; node: number; state: string } | null {
  const leader = replicas?.find((r) => r.raftState === 'leader');
  const it = replicas?.find((r) => r.node === node);
  return leader && it ? { leader: leader.commitIndex, node: it.commitIndex, state: it.raftState } : null;
}
