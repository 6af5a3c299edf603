/**
 * The set-up and the ending that labs failing one node of mqlab's three-node cluster under a stream
 * share, lab-agnostic: the cluster running (a node an earlier run left frozen or down runs again),
 * a quorum queue led by node 2, two recorded producers (src/kit/cluster/recorded-clients.ts) — A through
 * the leader's node, B through node 3 — and, after the fault, the resend of every unconfirmed id
 * through node 1 and the drain into the same History. Node 1 serves the engine and stays up.
 */
import type { Config } from '../../core/config.js';
import type { Management } from '../../broker/management.js';
import { LabError } from '../../core/errors.js';
import { analyse, firstConfirmAfter, History, historyEvent, type HistoryEntry } from './history.js';
import { quorumQueue, waitForMembers, type ClusterNode, type OwnCluster } from '../../services/cluster.js';
import { caughtUp, declareReplicated, endKeptPartition, viewOf } from '../../services/cluster-watch.js';
import { NET_TICKTIME_S } from '../../core/defaults.js';
import type { ReplicaStatus } from '../../services/cluster.js';
import { sleep, within } from '../../core/time.js';
import { sweepLinkCut } from '../../services/link-cut.js';
import {
  PacedProducer,
  drainRecorded,
  resendUnconfirmed,
  type ProducerOptions,
  type RecordConsumed,
} from './recorded-clients.js';

/**
 * the nodes of a cluster that stop or freeze: started again when down, resumed when stopped, restarted when
 * a kept partition leaves them apart (3.10), then all members running (bounded)
 */
export async function clusterRunning(
  config: Config,
  cluster: OwnCluster,
  progress: (line: string) => void,
): Promise<void> {
  for (const node of cluster.nodes) node.resume(); // SIGCONT: a node an interrupted run left frozen runs again
  // and the link cut a killed run left (the run holds the set alone: no other run's cut is there)
  if (await sweepLinkCut(config.ports))
    progress('removed the link cut an earlier run left between the nodes (nft table)');
  for (const node of cluster.nodes.filter((n) => n.pid() === null)) {
    progress(`${node.name} does not run (left down by an earlier run?): starting it`);
    await node.start();
  }
  await endKeptPartition(cluster, config.vhost, progress, cluster.nodes.slice(0, 1)); // node 1 serves the run
  await waitForMembers(config, cluster.nodes.length, 120_000);
}

/** what a run hands the stream: its config, management client, progress lines and event log */
interface StreamRun {
  config: Config;
  mgmt: Management;
  progress(line: string): void;
  log: { emit(source: string, fields: Record<string, unknown>): void };
  /** a wait the run's interrupt ends */
  sleep(ms: number): Promise<void>;
}

/** what the stream's ending (LeaderStream.settle) saw after the fault ended */
interface Settled {
  /** when every view asked showed all members running (null: not within the bound) */
  seenAt: number | null;
  /** the partitions the views listed meanwhile (3.10's Mnesia; 4.3 lists none) */
  partitions: string[];
  /** when the failed node was restarted to end a partition Mnesia kept (null: it was not) */
  restartedAt: number | null;
  /** quorum_status once the failed node was seen again, its replica at the leader's commit index (null: not seen) */
  replicas: readonly ReplicaStatus[] | null;
}

interface SettleOptions {
  /** the node the fault hit */
  failed: ClusterNode;
  /** the fault's end (Date.now): the heal, the resume */
  since: number;
  /** the nodes whose views must all show every member running */
  viewers: readonly ClusterNode[];
  /** restart `failed` when the views still list a partition 2 × net_ticktime after `since` (false: a broken run that never ended the fault) */
  restart: boolean;
  /** the bound on being seen again, and on catching up */
  timeoutMs: number;
  /** the producers run on this long once the members are seen, then stop */
  streamMs: number;
  /** the producers' grace for their outstanding confirms */
  graceMs: number;
  /** the progress line that says why `failed` is restarted, from the partitions listed */
  restarting(partitions: readonly string[]): string;
}

export interface HoldOptions {
  /** the node the fault hit (the leader's node or another) */
  failed: ClusterNode;
  /** when the fault began (Date.now, as the history has it) */
  at: number;
  /** the least time the fault is held (--cut-for, --pause-for) */
  forMs: number;
  /** held on past `forMs` until seen, for at most 2 × net_ticktime more (false: a broken variant that ends it at `forMs`) */
  untilSeen: boolean;
  /** the majority node whose own view must show `failed` down */
  viewer: ClusterNode;
  /** one more observation held the same way (partition: the cut-off node's own view of the others) */
  also?: () => Promise<boolean>;
  /**
   * held on past `forMs` until this is seen too, for at most `forMs` of its own after `at` (partition: the
   * delivery the consumer on the cut-off node held, given to another consumer); not with `untilSeen` false
   */
  awaited?: { seen: () => boolean; forMs: number };
  /** the fault in the progress line: "named no new leader within the cut" */
  word: string;
}

/** what was seen while the fault was held (Date.now; null: not while it was held) */
export interface Held {
  /** when node 1's management API first named a leader other than node 2 */
  electedAt: number | null;
  /** the last leader node 1's management API named meanwhile */
  leader: string | null;
  /** when `viewer`'s own view showed `failed` down */
  viewerSawAt: number | null;
  /** when `also` first held */
  alsoSeenAt: number | null;
  /** when producer A gave the leader's node up, at its first confirm timeout */
  abandonedAt: number | null;
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
  /**
   * after the fault: the members seen again by every viewer (a partition Mnesia keeps is ended by
   * restarting the failed node, as an operator must), the producers on for `streamMs` and stopped,
   * and the failed node's replica caught up
   */
  settle(o: SettleOptions): Promise<Settled>;
  /**
   * the fault held for `forMs`, then on until the views saw it and — when it hit the leader — until node 1's
   * management API named a new leader and producer B had a confirm sent after the fault, for at most
   * 2 × net_ticktime more: a busy machine sees late (3.10.8 at load 10–18: the cut-off node's own view had not
   * shown the cut 16.5 s into a 14 s cut). Producer A gives the leader's node up at its first confirm timeout,
   * as a client should; its ids are resent elsewhere. Each observation runs on its own: one that hangs (a
   * call that waits on the failed node) delays no other
   */
  hold(o: HoldOptions): Promise<Held>;
  /** the ids the history holds a confirm for, ascending */
  confirmed(): number[];
  /** every id without a confirm sent again through node 1 until confirmed; `also`: ids sent once more besides. The count sent */
  resendUnconfirmed(also?: readonly number[]): Promise<number>;
  /** the queue consumed through `through` into the history until empty and quiet (`record`: how a delivery is recorded) */
  drain(through: readonly ClusterNode[], depth: () => Promise<number>, record?: RecordConsumed): Promise<number>;
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
  const before = await declareReplicated(run.mgmt, node2.amqpUrl, queue, { ...queueArguments }, nodes.length, (line) =>
    run.progress(line),
  );
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
    hold: (o) => hold(run, queue, { nodes, leader: node2, majorityNode: node3, history, a }, o),
    settle: (o) => settle(run, cluster, queue, history, o, () => Promise.all([a.stop(o.graceMs), b.stop(o.graceMs)])),
    confirmed: () => [...analyse(history.entries).confirmed].sort((p, q) => p - q),
    resendUnconfirmed: (also = []) => resendUnconfirmed(history, node1.amqpUrl, node1.name, queue, 60_000, also),
    drain: (through, depth, record) =>
      drainRecorded(
        history,
        through.map((n) => n.amqpUrl),
        nameOf,
        queue,
        depth,
        { quietMs: 1500, timeoutMs: 120_000, ...(record ? { record } : {}) },
      ),
    close: async () => {
      await Promise.all([a.close(), b.close()]);
    },
  };
}

async function hold(
  run: StreamRun,
  queue: string,
  s: Pick<LeaderStream, 'nodes' | 'leader' | 'majorityNode' | 'history' | 'a'>,
  o: HoldOptions,
): Promise<Held> {
  const until = o.at + o.forMs;
  const latest = o.untilSeen ? until + 2 * NET_TICKTIME_S * 1000 : until;
  const failover = o.failed === s.leader ? latest : until;
  const watch = (seen: () => Promise<boolean>, end: number) => firstSeen(seen, end, (ms) => run.sleep(ms));
  const viewerSees = async () => {
    const v = await viewOf(o.viewer, run.config.vhost);
    return v !== null && !v.running.includes(o.failed.name);
  };
  const awaited = o.awaited;
  const elected = watchNewLeader(run.mgmt, queue, s.leader.name, failover, (ms) => run.sleep(ms));
  const [electedAt, , viewerSawAt, alsoSeenAt, abandonedAt] = await Promise.all([
    elected.at,
    watch(() => Promise.resolve(firstConfirmAfter(s.history.entries, s.majorityNode.name, o.at) !== null), failover),
    watch(viewerSees, latest),
    o.also ? watch(o.also, latest) : Promise.resolve(null),
    watch(async () => s.a.counts.timedOut > 0 && (await s.a.abandon(), true), until),
    awaited ? watch(() => Promise.resolve(awaited.seen()), o.untilSeen ? o.at + awaited.forMs : until) : null,
  ]);
  await run.sleep(Math.max(0, until - Date.now())); // held for forMs, whatever was seen
  const leader = elected.leader();
  const after = electedAt === null ? '' : ` after ${Math.round(electedAt - o.at)} ms`;
  run.progress(
    electedAt === null
      ? `${s.nodes[0].name}'s management API named no new leader within the ${o.word}${leader ? ` (it names ${leader})` : ''}`
      : `${s.nodes[0].name}'s management API named a new leader: ${leader}${after}`,
  );
  return { electedAt, leader, viewerSawAt, alsoSeenAt, abandonedAt };
}

async function settle(
  run: StreamRun,
  cluster: OwnCluster,
  queue: string,
  history: History,
  o: SettleOptions,
  stopProducers: () => Promise<unknown>,
): Promise<Settled> {
  let seenAt: number | null = null;
  let partitions: string[] = [];
  let restartedAt: number | null = null;
  const end = o.since + o.timeoutMs;
  while (Date.now() < end) {
    const views = await Promise.all(o.viewers.map((n) => viewOf(n, run.config.vhost)));
    const listed = [...new Set(views.flatMap((v) => v?.partitions ?? []))];
    if (listed.length) partitions = listed;
    if (views.every((v) => v && v.running.length === cluster.nodes.length)) {
      seenAt = Date.now();
      break;
    }
    // Mnesia's partition, kept under cluster_partition_handling=ignore (3.10's default): the nodes list it
    // once they meet again and stay apart until the minority node restarts (4.3 lists none: Khepri)
    if (o.restart && restartedAt === null && listed.length && Date.now() > o.since + 2 * NET_TICKTIME_S * 1000) {
      run.progress(o.restarting(listed));
      await o.failed.kill(30_000);
      await o.failed.start();
      restartedAt = history.injected('restart', o.failed.name);
    }
    await run.sleep(500);
  }
  await run.sleep(o.streamMs);
  await stopProducers();
  const replicas = seenAt
    ? await caughtUp(
        cluster,
        queue,
        run.config.vhost,
        o.failed.name,
        o.timeoutMs,
        (l) => run.progress(l),
        (ms) => run.sleep(ms),
      )
    : null;
  return { seenAt, partitions, restartedAt, replicas };
}

/**
 * the first time (Date.now) `seen` holds, polled every 250 ms until `until`; null: not by then (a failed poll
 * is a no, and so is an answer after `until`: a call waiting on a cut-off node returns no later than `until`).
 * Run one per observation: one that hangs delays no other
 */
export async function firstSeen(
  seen: () => Promise<boolean>,
  until: number,
  wait: (ms: number) => Promise<void> = sleep,
): Promise<number | null> {
  for (let left = until - Date.now(); left > 0; left = until - Date.now()) {
    if (await within(seen(), left, 'an observation').catch(() => false)) return Date.now();
    await wait(Math.min(250, Math.max(0, until - Date.now())));
  }
  return null;
}

/** one probe of the management API's queue view: an answer after this long counts as none */
const LEADER_PROBE_MS = 3000;

/**
 * When node 1's management API first names a leader of `queue` other than `before` (watched until `until`),
 * and the last leader it named. Its queue view asks rabbit:is_running of every member, with a 10 s timeout
 * (rabbit_nodes:list_running, called by rabbit_quorum_queue:format; v4.3.5 deps/rabbit/src/rabbit_nodes.erl
 * FILTER_RPC_TIMEOUT): while a node is silent a probe answers 10 s after it was sent or once node 1 gave
 * that node up, whichever is first (measured on 4.3.6: the new leader named at node 1's nodedown, 10–12 s
 * into a cut, 1.8–5.2 s after the majority's first confirm; once, under load, no new leader within 14 s).
 */
function watchNewLeader(
  mgmt: Management,
  queue: string,
  before: string,
  until: number,
  wait: (ms: number) => Promise<void>,
): { at: Promise<number | null>; leader: () => string | null } {
  let leader: string | null = null; // the last one an answer named
  const at = firstSeen(
    async () => {
      const named = (await within(quorumQueue(mgmt, queue), LEADER_PROBE_MS, 'the queue'))?.leader ?? null;
      if (named) leader = named;
      return named !== null && named !== before;
    },
    until,
    wait,
  );
  return { at, leader: () => leader };
}
