/**
 * What labs that fail a node of mqlab's cluster watch, lab-agnostic: a quorum queue declared through
 * a chosen node (so it leads there), its replicas online, the leader the management API names, each
 * node's own view of the members (its own management API), and a replica reaching the leader's
 * commit index (quorum_status).
 */
import { closeConnection } from '../broker/broker.js';
import { connectAny } from '../broker/reconnect.js';
import { Management } from '../broker/management.js';
import { EnvError, LabError } from '../errors.js';
import { sleep, within } from '../time.js';
import { maskUrl } from '../urls.js';
import {
  members,
  quorumQueue,
  type ClusterNode,
  type OwnCluster,
  type QuorumReplicas,
  type ReplicaStatus,
} from './cluster.js';

/** delete and declare `queue` through `url`, `rounds` times (its leader there with x-queue-leader-locator client-local) */
export async function declareThrough(
  url: string,
  queue: string,
  args: Record<string, unknown>,
  rounds = 1,
): Promise<void> {
  const { connection, channel } = await connectAny({ urls: [url], maxWaitMs: 60_000 });
  // a channel the broker closes answers a pending call with only "Channel ended": the broker's reason comes as an event
  let closedBy: Error | null = null;
  channel.on('error', (err: Error) => (closedBy = err));
  const answered = async <T>(p: Promise<T>, what: string) => {
    const where = `${what} ${queue} through ${maskUrl(url)}`;
    try {
      return await within(p, 60_000, where);
    } catch (err) {
      throw closedBy ? new LabError(`${where}: ${closedBy.message}`) : err;
    }
  };
  try {
    for (let k = 0; k < rounds; k++) {
      await answered(channel.deleteQueue(queue), 'the delete of');
      await answered(channel.assertQueue(queue, { durable: true, arguments: args }), 'the declare of');
    }
  } finally {
    await closeConnection(connection);
  }
}

/**
 * `queue` deleted and declared through `url` (declareThrough, `rounds` times) until `n` replicas are online
 * with a leader; `declaredAt`: when the declare that got them was answered. A node refuses a replica while
 * the one it replaces, of the same name, is still terminating (3.10.8 logged ra's {already_started, Pid},
 * 51 ms after the delete): fewer replicas come online. Then, 10 s after the declare, it is declared once more.
 */
export async function declareReplicated(
  mgmt: Management,
  url: string,
  queue: string,
  args: Record<string, unknown>,
  n: number,
  progress: (line: string) => void,
  rounds = 1,
): Promise<{ replicas: QuorumReplicas; declaredAt: number }> {
  await declareThrough(url, queue, args, rounds);
  const declaredAt = Date.now();
  const replicas = await replicasOnline(mgmt, queue, n, 10_000).catch(() => null);
  if (replicas) return { replicas, declaredAt };
  progress(`${queue}: fewer than ${n} replicas online 10 s after the declare: declared once more`);
  await declareThrough(url, queue, args);
  const again = Date.now();
  return { replicas: await replicasOnline(mgmt, queue, n), declaredAt: again };
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

/**
 * A partition Mnesia keeps once the links are back (3.10.8 under cluster_partition_handling ignore, its
 * default; docs/labs/partition.md): the nodes stay apart until the node the others list restarts, as an
 * operator must. Each node that every other node lists as apart from itself is restarted (4.3
 * lists none, Khepri: nothing is done there); one of `keep` (node 1, serving a run) is an EnvError instead.
 */
export async function endKeptPartition(
  cluster: OwnCluster,
  vhost: string,
  progress: (line: string) => void,
  keep: readonly ClusterNode[] = [],
): Promise<void> {
  const views = await Promise.all(cluster.nodes.map((n) => viewOf(n, vhost)));
  const apart = apartNodes(views);
  for (const node of cluster.nodes.filter((n) => apart.includes(n.name))) {
    const why = `${node.name} is apart from the other nodes (they list it in their partitions: the partition Mnesia keeps, left by an earlier run)`;
    if (keep.includes(node)) throw new EnvError(why, 'run `mqlab up --nodes 3`: it restarts that node');
    progress(`${why}: restarting it`);
    await node.kill(30_000);
    await node.start();
  }
}

/** the nodes every other node's own view lists as apart from itself (`views`: one per node; none when one did not answer) */
export function apartNodes(views: readonly (NodeView | null)[]): string[] {
  const answered = views.filter((v): v is NodeView => v !== null);
  if (answered.length < 2 || answered.length < views.length) return [];
  return answered
    .map((v) => v.node)
    .filter((node) => answered.every((v) => v.node === node || v.ownPartitions.includes(node)));
}

/** one node's own view of the cluster: the members it reports running, and the partitions it reports (null: it did not answer) */
export interface NodeView {
  node: string;
  running: string[];
  /** every partition any member's entry lists */
  partitions: string[];
  /** the nodes its own entry lists as apart from it */
  ownPartitions: string[];
}

export async function viewOf(node: ClusterNode, vhost: string, timeoutMs = 3000): Promise<NodeView | null> {
  const mgmt = new Management(node.mgmtUrl, vhost);
  try {
    const m = await within(members(mgmt), timeoutMs, `the members as ${node.name} sees them`);
    return {
      node: node.name,
      running: m.filter((x) => x.running).map((x) => x.name),
      partitions: [...new Set(m.flatMap((x) => x.partitions))].sort(),
      ownPartitions: m.find((x) => x.name === node.name)?.partitions ?? [],
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
  /** the run's sleep: Ctrl-C ends the wait */
  wait: (ms: number) => Promise<void>,
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
    await wait(1000);
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
