/**
 * The set-up and the ending that labs failing one node of mqlab's three-node cluster under a stream
 * share, lab-agnostic: the cluster running (a node an earlier run left frozen or down runs again),
 * a quorum queue led by node 2, two recorded producers (src/broker/recorded-clients.ts) — A through
 * the leader's node, B through node 3 — and, after the fault, the resend of every unconfirmed id
 * through node 1 and the drain into the same History. Node 1 serves the engine and stays up.
 */
import type { Config } from '../config.js';
import type { Management } from './management.js';
import { LabError } from '../errors.js';
import { analyse, History, historyEvent, type HistoryEntry } from '../history.js';
import { waitForMembers, type ClusterNode, type OwnCluster } from '../services/cluster.js';
import { declareThrough, replicasOnline } from '../services/cluster-watch.js';
import { sleep } from '../time.js';
import { PacedProducer, drainRecorded, resendUnconfirmed, type ProducerOptions } from './recorded-clients.js';

/** the nodes of a cluster that stop or freeze: started again when down, resumed when stopped, then all members running (bounded) */
export async function clusterRunning(
  config: Config,
  cluster: OwnCluster,
  progress: (line: string) => void,
): Promise<void> {
  for (const node of cluster.nodes) node.resume(); // SIGCONT: a node an interrupted run left frozen runs again
  for (const node of cluster.nodes.filter((n) => n.pid() === null)) {
    progress(`${node.name} does not run (left down by an earlier run?): starting it`);
    await node.start();
  }
  await waitForMembers(config, cluster.nodes.length, 120_000);
}

/** what a run hands the stream: its config, management client, progress lines and event log */
export interface StreamRun {
  config: Config;
  mgmt: Management;
  progress(line: string): void;
  log: { emit(source: string, fields: Record<string, unknown>): void };
}

export interface LeaderStream {
  nodes: readonly [ClusterNode, ClusterNode, ClusterNode];
  /** node 2, the queue's leader when the stream starts */
  leader: ClusterNode;
  /** node 3: producer B's node */
  majorityNode: ClusterNode;
  /** every publish, confirm, nack, timeout, loss and consumed id, with its time and node */
  history: History;
  /** producer A, through the leader's node */
  a: PacedProducer;
  /** producer B, through node 3 */
  b: PacedProducer;
  /** both producers publish ids 1, 2, … (one sequence) to the queue until stopped */
  start(): void;
  /** both producers stop publishing and wait up to `graceMs` for their outstanding confirms */
  stop(graceMs: number): Promise<void>;
  /** the ids the history holds a confirm for, ascending */
  confirmed(): number[];
  /** every id without a confirm sent again through node 1 until confirmed; `also`: ids sent once more besides. The count sent */
  resendUnconfirmed(also?: readonly number[]): Promise<number>;
  /** the queue consumed through `through` into the history until empty and quiet (`ackUnrecorded`: recorded-clients.ts) */
  drain(through: readonly ClusterNode[], depth: () => Promise<number>, ackUnrecorded?: number): Promise<number>;
  /** both producers closed (an abandoned one is already) */
  close(): Promise<void>;
}

/**
 * `queue` deleted and declared through node 2 (`queueArguments` must lead it there: client-local), its
 * three replicas online with node 2 leading (else a LabError), and the two producers open on it
 */
export async function openLeaderStream(
  run: StreamRun,
  cluster: OwnCluster,
  queue: string,
  queueArguments: Record<string, unknown>,
  producer: ProducerOptions,
): Promise<LeaderStream> {
  if (cluster.nodes.length !== 3) throw new LabError(`the stream needs 3 nodes, not ${cluster.nodes.length}`);
  const nodes = cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
  const [node1, node2, node3] = nodes;
  await clusterRunning(run.config, cluster, (line) => run.progress(line));
  await declareThrough(node2.amqpUrl, queue, { ...queueArguments });
  const before = await replicasOnline(run.mgmt, queue, nodes.length);
  if (before.leader !== node2.name)
    throw new LabError(`the leader of ${queue} is ${before.leader}, not ${node2.name} through which it was declared`);
  const history = new History(Date.now, (e: HistoryEntry) => run.log.emit('history', historyEvent(e)));
  const a = await PacedProducer.open(node2.amqpUrl, node2.name, history, producer);
  const b = await PacedProducer.open(node3.amqpUrl, node3.name, history, producer).catch(async (err: unknown) => {
    await a.close();
    throw err;
  });
  let next = 1;
  const nextId = () => next++;
  const nameOf = (url: string) => nodes.find((n) => n.amqpUrl === url)?.name ?? url;
  return {
    nodes,
    leader: node2,
    majorityNode: node3,
    history,
    a,
    b,
    start() {
      a.start(queue, nextId);
      b.start(queue, nextId);
    },
    stop: async (graceMs) => {
      await Promise.all([a.stop(graceMs), b.stop(graceMs)]);
    },
    confirmed: () => [...analyse(history.entries).confirmed].sort((p, q) => p - q),
    resendUnconfirmed: (also = []) => resendUnconfirmed(history, node1.amqpUrl, node1.name, queue, 60_000, also),
    drain: (through, depth, ackUnrecorded = 0) =>
      drainRecorded(
        history,
        through.map((n) => n.amqpUrl),
        nameOf,
        queue,
        depth,
        { quietMs: 1500, timeoutMs: 120_000, ackUnrecorded },
      ),
    close: async () => {
      await Promise.all([a.close(), b.close()]);
    },
  };
}

/**
 * the first time (Date.now) `seen` holds, polled every 250 ms until `until`; null: not by then (a failed
 * poll is a no). Run one per observation: one that hangs (a call waiting on a cut-off node) delays no other
 */
export async function firstSeen(
  seen: () => Promise<boolean>,
  until: number,
  wait: (ms: number) => Promise<void> = sleep,
): Promise<number | null> {
  while (Date.now() < until) {
    if (await seen().catch(() => false)) return Date.now();
    await wait(250);
  }
  return null;
}
