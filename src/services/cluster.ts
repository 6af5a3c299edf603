/**
 * The cluster that `mqlab up --nodes N` started: its members as the management API sees them,
 * each quorum queue's leader and replicas, and — for labs that inject faults — each node's URLs
 * and OS process, stopped and started again only through the pid files mqlab itself wrote.
 */
import path from 'node:path';
import type { Config } from '../core/config.js';
import { Broker } from '../broker/broker.js';
import { Management } from '../broker/management.js';
import { MAX_NODES, nodePorts, urlsFor } from '../core/defaults.js';
import { adminPassword } from '../core/account-secrets.js';
import { EnvError } from '../core/errors.js';
import { sleep } from '../core/time.js';
import { recordedBackend, recordedNodes } from './data-folder.js';
import { pointsAt } from './control.js';
import {
  clusterNodes,
  nodeMarker,
  rabbitLog,
  rabbitPid,
  startRabbit,
  nodeCookie,
  rabbitAccount,
  rabbitBin,
  rabbitEnv,
  type NodeSpec,
} from './rabbitmq-node.js';
import { existingServiceDir, hostOf, run, type Host } from './host.js';
import { processStopped, waitGone } from './process.js';
import { linkCutLeft, linkTable, sweepLinkCut } from './link-cut.js';

/**
 * how long a restarted node may take to write its pid (it writes it early in its boot): a bound on a
 * hang, not a measurement — a 3.10 node restarted inside a three-node cluster at a load of 25 took over 30 s
 */
const PID_WITHIN_MS = 120_000;

export interface Member {
  name: string;
  running: boolean;
  /** the members this one reports itself partitioned from (the management API's `partitions`) */
  partitions: string[];
}

/** the cluster's nodes as the management API lists them (a stopped member still listed, running=false) */
export async function members(mgmt: Management): Promise<Member[]> {
  const nodes =
    (await mgmt.request<{ name: string; running: boolean; partitions?: string[] }[]>('GET', '/api/nodes')) ?? [];
  return nodes
    .map((n) => ({ name: n.name, running: n.running, partitions: (n.partitions ?? []).map(String).sort() }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** the address in a node name (`mqlab-c1@127.0.0.11`), or null for a host name */
export const addressOf = (node: string): string | null => {
  const host = node.slice(node.indexOf('@') + 1);
  return /^\d+\.\d+\.\d+\.\d+$/.test(host) ? host : null;
};

export interface QuorumReplicas {
  queue: string;
  leader: string | null;
  members: string[];
  online: string[];
  messages: number;
}

/** every quorum queue of the vhost: leader, members, the members online (management API) */
export async function quorumReplicas(mgmt: Management): Promise<QuorumReplicas[]> {
  const qs =
    (await mgmt.request<Record<string, unknown>[]>('GET', `/api/queues/${encodeURIComponent(mgmt.vhost)}`)) ?? [];
  return qs.filter((q) => q.type === 'quorum').map(replicasOf);
}

export async function quorumQueue(mgmt: Management, queue: string): Promise<QuorumReplicas | null> {
  const q = await mgmt.request<Record<string, unknown> | null>(
    'GET',
    `/api/queues/${encodeURIComponent(mgmt.vhost)}/${encodeURIComponent(queue)}`,
  );
  return q ? replicasOf(q) : null;
}

function replicasOf(q: Record<string, unknown>): QuorumReplicas {
  const list = (v: unknown) => (Array.isArray(v) ? v.map(String).sort() : []);
  return {
    queue: String(q.name),
    leader: typeof q.leader === 'string' ? q.leader : null,
    members: list(q.members),
    online: list(q.online),
    messages: Number(q.messages ?? 0),
  };
}

/** a node that `up` started and that exited, with why (null: every one still runs) */
export type NodeFailure = () => { reason: string; hint: string } | null;

/**
 * wait until the management API lists `n` running members — and with `listeners`, until each member's
 * own AMQP listener takes the lab account: the API counts a node running while it still boots (on 3.10
 * before its listeners start, and a listener that cannot bind its port ends that boot a moment later)
 */
export async function waitForMembers(
  config: Config,
  n: number,
  timeoutMs: number,
  opts: { failure?: NodeFailure; listeners?: boolean } = {},
): Promise<Member[]> {
  const mgmt = new Management(config.mgmtUrl, config.vhost);
  const urls = Array.from(
    { length: n },
    (_, k) => urlsFor(nodePorts(config.ports, k + 1), adminPassword(config.home)).amqp,
  );
  const end = Date.now() + timeoutMs;
  for (;;) {
    const m = await members(mgmt).catch(() => []);
    const running = m.filter((x) => x.running).length;
    if (running >= n && (!opts.listeners || (await listening(urls)))) return m;
    // a node `up` started that exited says why now, not when the wait ends
    const died = opts.failure?.();
    if (died) throw new EnvError(died.reason, died.hint);
    if (Date.now() > end)
      throw new EnvError(
        `the cluster has ${running} of ${n} nodes running after ${Math.round(timeoutMs / 1000)} s`,
        `see the node logs under ${config.home}; then run \`mqlab up --nodes ${n}\` again`,
      );
    await sleep(500);
  }
}

/** does every URL take an AMQP connection of the lab account (not merely a TCP one: another program may hold the port) */
const listening = (urls: string[]): Promise<boolean> =>
  Promise.all(urls.map((u) => Broker.connect(u).then((b) => b.close()))).then(
    () => true,
    () => false,
  );

/** a node of the cluster mqlab runs, as a lab may use it */
export interface ClusterNode {
  name: string;
  /** the node's own loopback address: its Erlang distribution listens on and connects from it (link-cut.ts cuts by it) */
  address: string;
  amqpUrl: string;
  mgmtUrl: string;
  /** the node's own log file (null: no folder here) */
  log(): string | null;
  /** the node's Erlang VM, from mqlab's own pid file; null when it does not run */
  pid(): number | null;
  /** SIGKILL the node's VM and wait until the process is gone; the pid that was killed */
  kill(timeoutMs: number): Promise<number>;
  /** start the node again (it rejoins with its data); resolves when the process runs */
  start(): Promise<void>;
  /** SIGSTOP the node's VM (frozen: sockets open, nothing answered); the pid stopped */
  pause(): number;
  /** SIGCONT the node's VM (a no-op when it runs); the pid, or null when there is none */
  resume(): number | null;
}

/**
 * The nodes of the cluster mqlab started from this data folder, or why there is none: the lab
 * needs `mqlab up --nodes N` (the app URLs must be mqlab's own services, not a broker of the user's).
 */
/** one replica of a quorum queue as `rabbitmq-queues quorum_status` reports it */
export interface ReplicaStatus {
  node: string;
  raftState: string;
  commitIndex: number;
  lastApplied: number;
  term: number;
}

export interface OwnCluster {
  nodes: ClusterNode[];
  /** each replica's Raft state and indexes (rabbitmq-queues quorum_status, asked through node 1) */
  quorumStatus(queue: string, vhost: string): Promise<ReplicaStatus[]>;
}

/** the lab's line when the cluster is missing (null: it is there) */
// eslint-disable-next-line @typescript-eslint/require-await -- async: a throw of ownCluster is a rejection, as meta.requires promises
export async function clusterMissing(config: Config, minNodes: number): Promise<string | null> {
  const c = ownCluster(config, minNodes);
  return 'missing' in c ? c.missing : null;
}

export function ownCluster(config: Config, minNodes: number): OwnCluster | { missing: string } {
  const need = `needs a cluster of ${minNodes} RabbitMQ nodes: run \`mqlab up --nodes ${minNodes}\``;
  const backend = recordedBackend(config.home);
  const n = recordedNodes(config.home);
  if (backend !== 'chroot' && backend !== 'system')
    return { missing: `${need} (no cluster started by mqlab in ${config.home})` };
  if (n < minNodes) return { missing: `${need} (this data folder runs ${n} node${n > 1 ? 's' : ''})` };
  if (!pointsAt(config.amqpUrl, config.ports.amqp) || !pointsAt(config.mgmtUrl, config.ports.management))
    return { missing: `${need} (MQLAB_AMQP_URL / MQLAB_MGMT_URL point at another broker)` };
  const host = hostOf(config, backend);
  const specs = clusterNodes(config.ports, n);
  return {
    nodes: specs.map((spec, k) =>
      clusterNode(host, spec, specs[0]!, urlsFor(nodePorts(config.ports, k + 1), adminPassword(config.home))),
    ),
    quorumStatus: (queue, vhost) => quorumStatus(host, specs[0]!, queue, vhost),
  };
}

/**
 * the CLI's own bound on one quorum_status (its default has none): a node that does not answer, e.g. one
 * just restarted, costs one try of the caller's loop (bounded by --catch-up-timeout), not the whole run
 */
const QUORUM_STATUS_TIMEOUT_S = 10;

/** `rabbitmq-queues quorum_status` through `via`: the package's own script (not the /usr/sbin wrapper, which resets HOME), so the cookie is read from the node's folder */
async function quorumStatus(host: Host, via: NodeSpec, queue: string, vhost: string): Promise<ReplicaStatus[]> {
  const dir = existingServiceDir(host, via.service);
  const bin = rabbitBin(host);
  if (!dir || !bin) throw new EnvError(`RabbitMQ node ${via.name} has no data folder here`, 'run `mqlab up --nodes 3`');
  const env = rabbitEnv(dir, via.ports, via.name, true, via.dist);
  const r = await run(
    host,
    rabbitAccount(host),
    path.join(path.dirname(bin), 'rabbitmq-queues'),
    [
      'quorum_status',
      '--vhost',
      vhost,
      queue,
      '-n',
      via.name,
      '--formatter',
      'json',
      '--timeout',
      String(QUORUM_STATUS_TIMEOUT_S),
    ],
    env,
    '/',
  );
  const text = r.stdout.slice(Math.max(0, r.stdout.indexOf('[')));
  let rows: Record<string, unknown>[];
  try {
    rows = JSON.parse(text) as Record<string, unknown>[];
  } catch {
    throw new EnvError(
      `rabbitmq-queues quorum_status ${queue} failed (exit ${r.exitCode}): ${(r.stderr || r.stdout).trim().split('\n').pop()?.slice(0, 200)}`,
    );
  }
  return rows.map((x) => ({
    node: String(x['Node Name']),
    raftState: String(x['Raft State']),
    commitIndex: Number(x['Commit Index']),
    lastApplied: Number(x['Last Applied']),
    term: Number(x['Term']),
  }));
}

function continued(pid: number): void {
  try {
    process.kill(pid, 'SIGCONT');
  } catch {
    /* gone */
  }
}

function clusterNode(host: Host, spec: NodeSpec, first: NodeSpec, urls: { amqp: string; mgmt: string }): ClusterNode {
  return {
    name: spec.name,
    address: spec.dist?.address ?? '127.0.0.1',
    amqpUrl: urls.amqp,
    mgmtUrl: urls.mgmt,
    log: () => rabbitLog(host, spec),
    pid: () => rabbitPid(host, spec),
    async kill(timeoutMs) {
      const pid = rabbitPid(host, spec);
      if (!pid) throw new EnvError(`RabbitMQ node ${spec.name} does not run`, 'run `mqlab up --nodes 3`');
      process.kill(pid, 'SIGKILL');
      if (!(await waitGone(pid, timeoutMs, nodeMarker(spec.service))))
        throw new EnvError(`RabbitMQ node ${spec.name} (pid ${pid}) still runs ${timeoutMs} ms after SIGKILL`);
      return pid;
    },
    async start() {
      const s = await startRabbit(host, spec, nodeCookie(host, first));
      const end = Date.now() + PID_WITHIN_MS;
      while (!rabbitPid(host, spec) && Date.now() < end) {
        const failed = s.failure();
        if (failed) throw new EnvError(failed, s.hint());
        await sleep(200);
      }
      const pid = rabbitPid(host, spec);
      if (!pid)
        throw new EnvError(`RabbitMQ node ${spec.name} wrote no pid within ${PID_WITHIN_MS / 1000} s`, `see ${s.log}`);
    },
    pause() {
      const pid = rabbitPid(host, spec);
      if (!pid) throw new EnvError(`RabbitMQ node ${spec.name} does not run`, 'run `mqlab up --nodes 3`');
      process.kill(pid, 'SIGSTOP');
      // the node runs again when mqlab ends, whatever ended it short of a SIGKILL (then: the next `mqlab up`)
      process.once('exit', () => continued(pid));
      return pid;
    },
    resume() {
      const pid = rabbitPid(host, spec);
      if (pid) continued(pid);
      return pid;
    },
  };
}

/**
 * `mqlab status`: what a lab injected and an earlier run left (mqlab itself killed), said, not undone:
 * the set's link-cut table, and any of its nodes left stopped (security review D12)
 */
export async function leftFaults(config: Config): Promise<string[]> {
  const out: string[] = [];
  if (await linkCutLeft(config.ports))
    out.push(
      `the links between the nodes are cut (nft table inet ${linkTable(config.ports)}): a partition run was killed`,
    );
  const backend = recordedBackend(config.home);
  if (backend !== 'chroot' && backend !== 'system') return out;
  const host = hostOf(config, backend);
  for (const spec of clusterNodes(config.ports, MAX_NODES)) {
    const pid = rabbitPid(host, spec);
    if (pid && processStopped(pid))
      out.push(`${spec.name} (pid ${pid}) is frozen (SIGSTOP): a node-pause run was killed`);
  }
  return out;
}

/**
 * `mqlab up` / `mqlab down`: undo what a lab injected and an earlier run left (mqlab itself killed):
 * the set's link-cut table, and SIGCONT for any of its nodes left stopped. Each line says what it undid.
 */
export async function sweepInjectedFaults(config: Config, log: (line: string) => void): Promise<void> {
  if (await sweepLinkCut(config.ports)) log('removed the link cut an earlier run left between the nodes (nft table)');
  const backend = recordedBackend(config.home);
  if (backend !== 'chroot' && backend !== 'system') return;
  const host = hostOf(config, backend);
  for (const spec of clusterNodes(config.ports, MAX_NODES)) {
    const pid = rabbitPid(host, spec);
    if (pid && processStopped(pid)) {
      process.kill(pid, 'SIGCONT');
      log(`resumed ${spec.name} (pid ${pid}): an earlier run left it stopped (SIGSTOP)`);
    }
  }
}
