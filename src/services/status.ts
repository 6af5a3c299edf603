/** mqlab status: URLs (masked), reachability, versions, capabilities, and every lab queue. */
import type { Config } from '../config.js';
import { Management, type QueueStats } from '../broker/management.js';
import { capabilities, describeCapabilities, type Capabilities } from '../broker/capabilities.js';
import { namesFor } from '../names.js';
import { Broker } from '../broker/broker.js';
import { measureCapabilities } from '../broker/capability-probe.js';
import { maskUrl } from '../urls.js';
import { labOptions, type Registry } from '../lab.js';
import { probe, type Probe } from './probe.js';
import { backendLine } from './index.js';
import { vhostDeadLetterLoops, type DeadLetterLoop } from '../broker/dlx-graph.js';
import { members, quorumReplicas, type Member, type QuorumReplicas } from './cluster.js';

export interface StatusReport {
  urls: { amqp: string; mgmt: string; pg: string };
  vhost: string;
  /** the backend `mqlab up` used for this data folder and what it runs, or null */
  backend: string | null;
  probe: Probe;
  capabilities: Capabilities | null;
  queues: { lab: string; queue: string; stats: QueueStats | null }[];
  /** dead-letter routes in the whole vhost that lead back into their own queue without a TTL hop */
  loops: DeadLetterLoop[] | null;
  /** the broker's cluster members (one for a single node) and each quorum queue's replicas */
  cluster: { members: Member[]; quorumQueues: QuorumReplicas[] } | null;
}

/** `registry`: the labs whose queues to show (handed in by the entry point: the engine knows no lab) */
export async function status(registry: Registry, config: Config): Promise<StatusReport> {
  const p = await probe(config);
  const report: StatusReport = {
    urls: { amqp: maskUrl(config.amqpUrl), mgmt: maskUrl(config.mgmtUrl), pg: maskUrl(config.pgUrl) },
    vhost: config.vhost,
    backend: backendLine(config),
    probe: p,
    capabilities: p.amqp.ok ? await measured(config, capabilities(p.amqp.version!)) : null,
    queues: [],
    loops: null,
    cluster: null,
  };
  if (p.mgmt.ok) {
    const mgmt = new Management(config.mgmtUrl, config.vhost);
    report.cluster = { members: await members(mgmt), quorumQueues: await quorumReplicas(mgmt) };
    const queues = await mgmt.queues();
    report.loops = await vhostDeadLetterLoops(mgmt, queues);
    const all = new Map(queues.map((q) => [q.name, q]));
    const n = namesFor(config);
    for (const entry of registry) {
      const { lab } = await entry.load();
      for (const q of lab.topology?.(n, labOptions(entry)).queues ?? []) report.queues.push({ lab: entry.name, queue: q.name, stats: all.get(q.name) ?? null });
    }
  }
  return report;
}

/** the derived capabilities, with the delivery-count ones measured on the broker (derived alone if that fails) */
async function measured(config: Config, derived: Capabilities): Promise<Capabilities> {
  const broker = await Broker.connect(config.amqpUrl).catch(() => null);
  if (!broker) return derived;
  try {
    return await measureCapabilities(broker, namesFor(config), derived);
  } finally {
    await broker.close();
  }
}

export function renderStatus(s: StatusReport): string[] {
  const p = s.probe;
  const mark = (ok: boolean, err?: string) => (ok ? 'reachable' : `NOT USABLE: ${err}`);
  const out = [
    `RabbitMQ    ${s.urls.amqp}  ${mark(p.amqp.ok, p.amqp.error)}`,
    `management  ${s.urls.mgmt}  ${mark(p.mgmt.ok, p.mgmt.error)}`,
    `PostgreSQL  ${s.urls.pg}  ${mark(p.pg.ok, p.pg.error)}`,
  ];
  if (s.backend) out.push(`backend     ${s.backend}`);
  if (p.amqp.ok) out.push(`broker      ${p.amqp.product} ${p.amqp.version} on ${p.mgmt.erlang ? `Erlang/OTP ${p.mgmt.erlang}` : (p.amqp.platform ?? 'Erlang')}`);
  if (p.pg.ok) out.push(`database    PostgreSQL ${p.pg.version}`);
  if (s.capabilities) {
    out.push('', `capabilities of RabbitMQ ${s.capabilities.version}:`);
    out.push(...describeCapabilities(s.capabilities).map((l) => '  ' + l));
  }
  if (s.cluster && s.cluster.members.length > 1) out.push('', ...renderCluster(s.cluster));
  if (s.queues.length) {
    const w = Math.max(...s.queues.map((q) => q.queue.length), 5);
    out.push('', `lab queues:`, `  ${'lab'.padEnd(20)} ${'queue'.padEnd(w)} messages  ready  unacked  policy`);
    for (const q of s.queues) {
      const st = q.stats;
      out.push(
        `  ${q.lab.padEnd(20)} ${q.queue.padEnd(w)} ` +
          (st ? `${String(st.messages).padStart(8)}  ${String(st.ready).padStart(5)}  ${String(st.unacked).padStart(7)}  ${st.policy ?? '-'}` : '(not declared yet: run the lab)'),
      );
    }
  }
  if (s.loops) {
    out.push('', `dead-letter routes in vhost ${s.vhost}:`);
    if (s.loops.length === 0) out.push('  no route leads a message back into its own queue without a TTL hop');
    for (const l of s.loops) out.push(`  LOOP ${l.path.join(' → ')}  (no TTL hop: a dead letter comes straight back)`);
  }
  return out;
}

/** members (running or not), then each quorum queue: leader, members, the ones online */
export function renderCluster(c: NonNullable<StatusReport['cluster']>): string[] {
  const out = [`cluster members (${c.members.filter((m) => m.running).length} of ${c.members.length} running):`];
  for (const m of c.members) out.push(`  ${m.name.padEnd(24)} ${m.running ? 'running' : 'NOT RUNNING'}`);
  if (c.quorumQueues.length === 0) return [...out, '  no quorum queue in the vhost'];
  out.push('quorum queues (leader; members, * = online):');
  for (const q of c.quorumQueues) {
    const ms = q.members.map((m) => (q.online.includes(m) ? `${m}*` : m)).join(', ');
    out.push(`  ${q.queue}  leader ${q.leader ?? '(none)'}; ${ms}  messages ${q.messages}`);
  }
  return out;
}
