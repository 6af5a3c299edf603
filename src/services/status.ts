/**
 * mqlab status: URLs (masked), reachability, versions, capabilities, and the lab queues. With a
 * namespace (--namespace / MQLAB_NAMESPACE) the queues, the cluster's quorum queues and the
 * dead-letter loops are that namespace's only (a loop through one of its queues or exchanges);
 * `labs` narrows the queues to those labs (--lab).
 */
import type { Config } from '../core/config.js';
import { Management, type QueueStats } from '../broker/management.js';
import { capabilities, describeCapabilities, type Capabilities } from '../broker/capabilities.js';
import { namesFor } from '../core/names.js';
import { Broker } from '../broker/broker.js';
import { measureCapabilities } from '../broker/capability-probe.js';
import { maskUrl } from '../core/urls.js';
import { labOptions, type Registry } from '../lab/lab.js';
import { probe, type Probe } from './probe.js';
import { reachedBackendLine } from './index.js';
import { vhostDeadLetterLoops, type DeadLetterLoop } from '../broker/dlx-graph.js';
import { addressOf, leftFaults, members, quorumReplicas, type Member, type QuorumReplicas } from './cluster.js';
import { heldOf } from '../core/checkpoint-view.js';

export interface StatusReport {
  /** the namespace whose queues are shown ('' = the names without a namespace, and the whole cluster) */
  namespace: string;
  urls: { amqp: string; mgmt: string; pg: string };
  vhost: string;
  /** the backend `mqlab up` used for this data folder and the line it runs; null when the URLs reach other services */
  backend: string | null;
  probe: Probe;
  capabilities: Capabilities | null;
  queues: { lab: string; queue: string; stats: QueueStats | null }[];
  /**
   * dead-letter routes that lead back into their own queue without a TTL hop: the whole vhost's, or with
   * a namespace those that pass one of its objects (a class's other loops are not a student's business)
   */
  loops: DeadLetterLoop[] | null;
  /** the broker's cluster members (one for a single node) and each quorum queue's replicas (the namespace's only) */
  cluster: { members: Member[]; quorumQueues: QuorumReplicas[] } | null;
  /** faults a lab injected that an earlier, killed run left (a link cut, a frozen node): `mqlab up` undoes them */
  leftFaults: string[];
}

/** `registry`: the labs whose queues to show (handed in by the entry point: the engine knows no lab) */
export async function status(registry: Registry, config: Config): Promise<StatusReport> {
  const p = await probe(config);
  const ns = config.namespace;
  const ours = (queue: string) => !ns || queue.startsWith(`${ns}.`);
  const report: StatusReport = {
    namespace: ns,
    urls: { amqp: maskUrl(config.amqpUrl), mgmt: maskUrl(config.mgmtUrl), pg: maskUrl(config.pgUrl) },
    vhost: config.vhost,
    backend: reachedBackendLine(config),
    probe: p,
    capabilities: p.amqp.ok ? await measured(config, capabilities(p.amqp.version!)) : null,
    queues: [],
    loops: null,
    cluster: null,
    leftFaults: await leftFaults(config),
  };
  if (p.mgmt.ok) {
    const mgmt = new Management(config.mgmtUrl, config.vhost);
    report.cluster = {
      // an account without the monitoring tag (a class student's: policymaker) may not list the nodes
      // (401, though /api/overview answered it): no cluster part for it
      members: await members(mgmt).catch(() => []),
      quorumQueues: (await quorumReplicas(mgmt)).filter((q) => ours(q.queue)),
    };
    const queues = await mgmt.queues();
    // searched over the whole vhost (a loop may pass an exchange of any name), shown where it passes ours
    report.loops = (await vhostDeadLetterLoops(mgmt, queues)).filter((l) => !ns || l.path.some(ours));
    const all = new Map(queues.map((q) => [q.name, q]));
    const n = namesFor(config);
    for (const entry of registry) {
      const { lab } = await entry.load();
      for (const q of lab.topology?.(n, labOptions(entry)).queues ?? [])
        report.queues.push({ lab: entry.name, queue: q.name, stats: all.get(q.name) ?? null });
    }
  }
  return report;
}

/** the derived capabilities, with the delivery-count ones measured on the broker (derived alone if that fails) */
async function measured(config: Config, derived: Capabilities): Promise<Capabilities> {
  const broker = await Broker.connect(config.amqpUrl).catch(() => null);
  if (!broker) return derived;
  try {
    const mgmt = new Management(config.mgmtUrl, config.vhost);
    return await measureCapabilities(broker, namesFor(config), derived, () => mgmt.enabledFeatureFlags());
  } finally {
    await broker.close();
  }
}

export function renderStatus(s: StatusReport): string[] {
  return [...renderServices(s), ...renderQueues(s), ...renderLoops(s)];
}

/** URLs, reachability, backend, versions, capabilities, the cluster in a few lines */
function renderServices(s: StatusReport): string[] {
  const p = s.probe;
  const mark = (ok: boolean, err?: string) => (ok ? 'reachable' : `NOT USABLE: ${err}`);
  const out = [
    `RabbitMQ    ${s.urls.amqp}  ${mark(p.amqp.ok, p.amqp.error)}`,
    `management  ${s.urls.mgmt}  ${mark(p.mgmt.ok, p.mgmt.error)}`,
    `PostgreSQL  ${s.urls.pg}  ${mark(p.pg.ok, p.pg.error)}`,
  ];
  if (s.backend) out.push(`backend     ${s.backend}`);
  if (p.amqp.ok)
    out.push(
      `broker      ${p.amqp.product} ${p.amqp.version} on ${p.mgmt.erlang ? `Erlang/OTP ${p.mgmt.erlang}` : (p.amqp.platform ?? 'Erlang')}`,
    );
  if (p.pg.ok) out.push(`database    PostgreSQL ${p.pg.version}`);
  if (s.capabilities) {
    out.push('', `capabilities of RabbitMQ ${s.capabilities.version}:`);
    out.push(...describeCapabilities(s.capabilities).map((l) => '  ' + l));
  }
  if (s.cluster && s.cluster.members.length > 1)
    out.push('', ...(s.namespace ? clusterSummary(s.cluster, s.namespace) : renderCluster(s.cluster)));
  if (s.leftFaults.length)
    out.push('', 'LEFT BY AN EARLIER RUN (`mqlab up` undoes it):', ...s.leftFaults.map((f) => `  ${f}`));
  return out;
}

/**
 * The lab queues that exist (messages, ready, unacked, held, policy), then one line for those not
 * declared yet. held = messages − ready − unacked: at-least-once dead letters the queue still keeps.
 */
function renderQueues(s: StatusReport): string[] {
  if (!s.queues.length) return [];
  const declared = s.queues.filter((q) => q.stats);
  const title = s.namespace ? `lab queues of namespace ${s.namespace}:` : 'lab queues:';
  const out = ['', title];
  if (declared.length) {
    const lw = Math.max(...declared.map((q) => q.lab.length), 3);
    const w = Math.max(...declared.map((q) => q.queue.length), 5);
    out.push(`  ${'lab'.padEnd(lw)}  ${'queue'.padEnd(w)}  messages  ready  unacked  held  policy`);
    for (const q of declared) {
      const st = q.stats!;
      const n = (v: number, pad: number) => String(v).padStart(pad);
      out.push(
        `  ${q.lab.padEnd(lw)}  ${q.queue.padEnd(w)}  ${n(st.messages, 8)}  ${n(st.ready, 5)}  ${n(st.unacked, 7)}  ${n(heldOf(st), 4)}  ${st.policy ?? '-'}`,
      );
    }
  }
  const missing = s.queues.length - declared.length;
  if (missing) {
    const labs = new Set(s.queues.filter((q) => !q.stats).map((q) => q.lab));
    out.push(
      `  ${declared.length ? '' : 'none declared yet; '}${missing} queue(s) of ${labs.size} lab(s) not declared yet: run the lab`,
    );
  }
  return out;
}

/** dead-letter routes that lead back into their own queue without a TTL hop */
function renderLoops(s: StatusReport): string[] {
  const out: string[] = [];
  if (s.loops) {
    out.push('', `dead-letter routes ${s.namespace ? `of namespace ${s.namespace} ` : ''}in vhost ${s.vhost}:`);
    if (s.loops.length === 0) out.push('  no route leads a message back into its own queue without a TTL hop');
    for (const l of s.loops) out.push(`  LOOP ${l.path.join(' → ')}  (no TTL hop: a dead letter comes straight back)`);
  }
  return out;
}

/** with a namespace: the members in one line, the namespace's quorum queues in one */
function clusterSummary(c: NonNullable<StatusReport['cluster']>, namespace: string): string[] {
  const running = c.members.filter((m) => m.running);
  const down = c.members.filter((m) => !m.running).map((m) => m.name);
  const leaders = new Map<string, number>();
  for (const q of c.quorumQueues) leaders.set(q.leader ?? '(none)', (leaders.get(q.leader ?? '(none)') ?? 0) + 1);
  const short = c.quorumQueues.filter((q) => q.online.length < q.members.length).length;
  return [
    `cluster     ${running.length} of ${c.members.length} members running${down.length ? ` (NOT RUNNING: ${down.join(', ')})` : ''}`,
    `            ${c.quorumQueues.length} quorum queue(s) of ${namespace}` +
      (c.quorumQueues.length
        ? `; leaders: ${[...leaders].map(([n, k]) => `${n} ${k}`).join(', ')}; ${short ? `${short} with a member offline` : 'every member online'}`
        : ''),
  ];
}

/** members (running or not), then each quorum queue: leader, members, the ones online */
function renderCluster(c: NonNullable<StatusReport['cluster']>): string[] {
  const out = [`cluster members (${c.members.filter((m) => m.running).length} of ${c.members.length} running):`];
  for (const m of c.members) {
    const address = addressOf(m.name);
    out.push(
      `  ${m.name.padEnd(24)} ${(m.running ? 'running' : 'NOT RUNNING').padEnd(11)}` +
        (address ? ` address ${address} (Erlang distribution; AMQP and management on 127.0.0.1)` : '') +
        (m.partitions.length ? ` PARTITIONED from ${m.partitions.join(', ')}` : ''),
    );
  }
  if (c.quorumQueues.length === 0) return [...out, '  no quorum queue in the vhost'];
  out.push('quorum queues (leader; members, * = online):');
  for (const q of c.quorumQueues) {
    const ms = q.members.map((m) => (q.online.includes(m) ? `${m}*` : m)).join(', ');
    out.push(`  ${q.queue}  leader ${q.leader ?? '(none)'}; ${ms}  messages ${q.messages}`);
  }
  return out;
}

/** `status --watch`: versions in one line, the cluster in two, the queues, loops only when there are */
export function watchLines(s: StatusReport): string[] {
  const p = s.probe;
  const down = [
    p.amqp.ok ? null : `RabbitMQ NOT USABLE: ${p.amqp.error}`,
    p.mgmt.ok ? null : `management NOT USABLE: ${p.mgmt.error}`,
    p.pg.ok ? null : `PostgreSQL NOT USABLE: ${p.pg.error}`,
  ];
  const out = [
    [
      p.amqp.ok ? `RabbitMQ ${p.amqp.version}` : null,
      p.pg.ok ? `PostgreSQL ${p.pg.version}` : null,
      `vhost ${s.vhost}`,
      s.namespace ? `namespace ${s.namespace}` : 'no namespace',
    ]
      .filter(Boolean)
      .join(' · '),
    ...down.filter((l): l is string => l !== null),
  ];
  if (s.cluster && s.cluster.members.length > 1) out.push(...clusterSummary(s.cluster, s.namespace || 'the vhost'));
  out.push(...renderQueues(s));
  if (s.loops?.length) out.push(...renderLoops(s));
  return out;
}
