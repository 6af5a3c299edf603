/**
 * What labs that fail a node of mqlab's cluster watch, lab-agnostic: a quorum queue declared through
 * a chosen node (so it leads there), its replicas online, the leader the management API names, each
 * node's own view of the members (its own management API), and a replica reaching the leader's
 * commit index (quorum_status).
 */
import { closeConnection } from '../broker/broker.js';
import { connectAny } from '../broker/reconnect.js';
import { Management } from '../broker/management.js';
import { EnvError, LabError } from '../core/errors.js';
import { sleep, within } from '../core/time.js';
import { maskUrl } from '../core/urls.js';
import {
  members,
  quorumQueue,
  type ClusterNode,
  type OwnCluster,
  type QuorumReplicas,
  type ReplicaStatus,
} from './cluster.js';

/**
 * delete and declare `queue` through `url`, `rounds` times (its leader there with x-queue-leader-locator
 * client-local), `pauseMs` between each delete and its declare (REPLACED_REPLICA_GONE_MS: what a
 * replaced queue needs). A declare right after the delete can meet a node whose replica of the same name is still
 * terminating: ra refuses the new one ({already_started, Pid}) and, on 4.3.6, the declaring channel
 * crashes ({badmatch,{error,noproc}} in rabbit_channel:handle_method/6, seen in node 2's log in a CI
 * run), which closes the connection. That declare is made again on a new connection after the old
 * replica's termination has had a second, at most three times, each with a line saying why.
 */
async function declareThrough(
  url: string,
  queue: string,
  args: Record<string, unknown>,
  rounds = 1,
  progress: (line: string) => void = () => {},
  pauseMs = REPLACED_REPLICA_GONE_MS,
): Promise<void> {
  for (let k = 0; k < rounds; k++) {
    for (let attempt = 1; ; attempt++) {
      try {
        await deleteAndDeclare(url, queue, args, pauseMs);
        break;
      } catch (err) {
        if (attempt >= 3 || !(err instanceof DeclareClosed)) throw err;
        progress(`${err.message}: the replaced replica may still be terminating; declared again in 1 s`);
        await sleep(1000);
      }
    }
  }
}

/**
 * a deleted quorum queue's replicas have terminated this long after the delete (20 × the 51 ms seen).
 * On 3.10.8 a declare sooner (14–21 ms after the delete: 10 runs of 10) left a node that is then killed
 * unable to restart the new replica (`could not be restarted {error,enoent}`); 1 s: 16 runs of 16 caught up
 */
export const REPLACED_REPLICA_GONE_MS = 1000;

/** the declare's channel or connection was closed by the broker */
class DeclareClosed extends LabError {}

async function deleteAndDeclare(
  url: string,
  queue: string,
  args: Record<string, unknown>,
  pauseMs: number,
): Promise<void> {
  const { connection, channel } = await connectAny({ urls: [url], maxWaitMs: 60_000 });
  // a channel the broker closes answers a pending call with only "Channel ended": the broker's reason
  // comes as an event, of the channel or, when the channel process crashed, of the connection
  let closedBy: Error | null = null;
  channel.on('error', (err: Error) => (closedBy = err));
  connection.on('error', (err: Error) => (closedBy ??= err));
  connection.on('close', (err?: Error) => (closedBy ??= err ?? new Error('the connection closed')));
  const answered = async <T>(p: Promise<T>, what: string) => {
    const where = `${what} ${queue} through ${maskUrl(url)}`;
    try {
      return await within(p, 60_000, where);
    } catch (err) {
      throw closedBy ? new DeclareClosed(`${where}: ${closedBy.message}`) : err;
    }
  };
  try {
    await answered(channel.deleteQueue(queue), 'the delete of');
    // the deleted queue's replicas terminate after the delete is answered (9-51 ms seen in the nodes'
    // logs); a replica declared before its namesake has gone is refused (ra {already_started, Pid})
    await sleep(pauseMs);
    await answered(channel.assertQueue(queue, { durable: true, arguments: args }), 'the declare of');
  } finally {
    await closeConnection(connection).catch(() => {});
  }
}

/**
 * `queue` deleted and declared through `url` (declareThrough, `rounds` times, `pauseMs` after each
 * delete) until `n` replicas are online with a leader. A node refuses a replica while the one it
 * replaces, of the same name, is still terminating (3.10.8 logged ra's {already_started, Pid}, 51 ms
 * after the delete): fewer replicas come online. Then, 10 s after the declare, it is declared once more.
 */
export async function declareReplicated(
  mgmt: Management,
  url: string,
  queue: string,
  args: Record<string, unknown>,
  n: number,
  progress: (line: string) => void,
  { rounds = 1, pauseMs = REPLACED_REPLICA_GONE_MS }: { rounds?: number; pauseMs?: number } = {},
): Promise<QuorumReplicas> {
  await declareThrough(url, queue, args, rounds, progress, pauseMs);
  const replicas = await replicasOnline(mgmt, queue, n, 10_000).catch(() => null);
  if (replicas) return replicas;
  progress(`${queue}: fewer than ${n} replicas online 10 s after the declare: declared once more`);
  await declareThrough(url, queue, args, 1, progress);
  return replicasOnline(mgmt, queue, n);
}

/** the management API's view of `queue` once `n` replicas are online and it has a leader (bounded) */
async function replicasOnline(mgmt: Management, queue: string, n: number, timeoutMs = 30_000) {
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
