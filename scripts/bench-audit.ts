/**
 * The bench's audit measurement: fill the vhost with generated queues (classic, durable; every tenth
 * dead-letters through an exchange, every twentieth has a TTL, half are bound; two in a hundred hold
 * one message, half of those a dead-lettering one, which the audit finds as a delay queue), for
 * `mqlab audit` to read and check. Run it on a set of your own (MQLAB_HOME + MQLAB_PORT_OFFSET): thousands of queues
 * slow a shared broker's management API for everyone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { Broker, closeChannel } from '../src/broker/broker.js';
import { loadConfig } from '../src/core/config.js';

const AUDIT_NAMESPACE = 'bench_audit';
/** the queues that hold one message: i % 100 = 3 (plain) and 10 (dead-letters, no TTL: a delay queue to the audit) */
const HOLDS_ONE = (i: number) => i % 100 === 3 || i % 100 === 10;

/** declare `count` queues under bench_audit (idempotent), `parallel` channels at a time; returns how long it took */
export async function fillQueues(count: number, parallel = 8): Promise<number> {
  const t = performance.now();
  const broker = await Broker.connect(loadConfig({}, process.env).amqpUrl);
  try {
    const setup = await broker.newChannel();
    await setup.assertExchange(`${AUDIT_NAMESPACE}.work`, 'direct', { durable: true });
    await setup.assertExchange(`${AUDIT_NAMESPACE}.dead`, 'direct', { durable: true });
    await closeChannel(setup);
    let next = 0;
    const worker = async () => {
      const ch = await broker.newChannel();
      while (next < count) {
        const i = next++;
        const name = `${AUDIT_NAMESPACE}.q${String(i).padStart(5, '0')}`;
        const args: Record<string, unknown> = { 'x-queue-type': 'classic' };
        if (i % 10 === 0)
          Object.assign(args, {
            'x-dead-letter-exchange': `${AUDIT_NAMESPACE}.dead`,
            'x-dead-letter-routing-key': 'dead',
          });
        if (i % 20 === 5) args['x-message-ttl'] = 60_000;
        await ch.assertQueue(name, { durable: true, arguments: args });
        if (i % 2 === 0) await ch.bindQueue(name, `${AUDIT_NAMESPACE}.work`, `k${i}`);
        if (i === 1) await ch.bindQueue(name, `${AUDIT_NAMESPACE}.dead`, 'dead');
        if (HOLDS_ONE(i)) {
          await ch.purgeQueue(name); // one message, however often the bench filled the queue
          ch.sendToQueue(name, Buffer.from('held'), { persistent: true });
          await ch.waitForConfirms();
        }
      }
      await closeChannel(ch);
    };
    await Promise.all(Array.from({ length: parallel }, worker));
  } finally {
    await broker.close();
  }
  return performance.now() - t;
}

/** delete what fillQueues declared (on the broker of MQLAB_* in this environment); returns how many queues went */
export async function dropQueues(count: number, parallel = 8): Promise<number> {
  const broker = await Broker.connect(loadConfig({}, process.env).amqpUrl);
  let next = 0;
  let dropped = 0;
  try {
    const worker = async () => {
      const ch = await broker.newChannel();
      while (next < count) {
        const i = next++;
        await ch.deleteQueue(`${AUDIT_NAMESPACE}.q${String(i).padStart(5, '0')}`);
        dropped++;
      }
      await closeChannel(ch);
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    const ch = await broker.newChannel();
    for (const x of ['work', 'dead']) await ch.deleteExchange(`${AUDIT_NAMESPACE}.${x}`);
    await closeChannel(ch);
  } finally {
    await broker.close();
  }
  return dropped;
}

/**
 * A definitions export of `count` queues in the shape real services use, for the offline bound: per
 * twenty queues, ten work queues (quorum, each bound to topic exchange `events` with `svcN.*`), nine
 * DLQs (bound to topic exchange `dlx` with `svcN.#`; the tenth work queue has none: its letters are
 * lost, a finding) and one TTL retry queue for the first (a retry loop back through `events`). The
 * dead-letter exchange comes from a policy matching `\.work$`, so every work queue's letters go
 * through the topic exchange with the keys that brought them in: each a pattern checked against
 * thousands of bindings.
 */
function topicDefinitions(count: number): Record<string, unknown> {
  const vhost = 'bench';
  const queues: Record<string, unknown>[] = [];
  const bindings: Record<string, unknown>[] = [];
  const queue = (name: string, args: Record<string, unknown>) =>
    queues.push({ name, vhost, durable: true, auto_delete: false, arguments: { 'x-queue-type': 'quorum', ...args } });
  const bind = (source: string, destination: string, key: string) =>
    bindings.push({ source, vhost, destination, destination_type: 'queue', routing_key: key, arguments: {} });
  for (let i = 0; i < count; i++) {
    const k = i % 20;
    const svc = `svc${i - k + (k < 10 ? k : k < 19 ? k - 10 : 0)}`;
    if (k < 10) {
      queue(`${svc}.work`, k === 0 ? { 'x-dead-letter-exchange': 'retry', 'x-dead-letter-routing-key': svc } : {});
      bind('events', `${svc}.work`, `${svc}.*`);
    } else if (k < 19) {
      queue(`${svc}.dlq`, {});
      bind('dlx', `${svc}.dlq`, `${svc}.#`);
    } else {
      queue(`${svc}.retry`, {
        'x-message-ttl': 5000,
        'x-dead-letter-exchange': 'events',
        'x-dead-letter-routing-key': `${svc}.retried`,
      });
      bind('retry', `${svc}.retry`, svc);
    }
  }
  const exchange = (name: string, type: string) => ({
    name,
    vhost,
    type,
    durable: true,
    auto_delete: false,
    internal: false,
    arguments: {},
  });
  return {
    rabbit_version: '4.3.6',
    rabbitmq_version: '4.3.6',
    vhosts: [{ name: vhost }],
    policies: [
      {
        vhost,
        name: 'work-dlx',
        pattern: '\\.work$',
        'apply-to': 'queues',
        priority: 1,
        definition: { 'dead-letter-exchange': 'dlx', 'delivery-limit': 5 },
      },
      {
        vhost,
        name: 'dlq-bound',
        pattern: '\\.dlq$',
        'apply-to': 'queues',
        priority: 1,
        definition: { 'max-length': 100000 },
      },
    ],
    exchanges: [exchange('events', 'topic'), exchange('dlx', 'topic'), exchange('retry', 'direct')],
    queues,
    bindings,
  };
}

/**
 * The offline bounds (docs/audit.md "Scale"): the checks of 10,000 queues through a topic DLX, and
 * 100,000 queues end to end. Judged in CPU time (the audit is one thread: on an idle machine its wall
 * time; on a machine shared with other work the wall time measures the others too), beside the wall time.
 */
export const OFFLINE_BOUNDS = [
  { queues: 10_000, measure: 'checks', boundMs: 1000 },
  { queues: 100_000, measure: 'total', boundMs: 10_000 },
] as const;

interface OfflineRun {
  /** wall time of the process, start to end */
  wallMs: number;
  /** CPU time of the whole process (user + system, /usr/bin/time), else of its read and checks */
  cpuMs: number;
  readMs: number;
  readCpuMs: number;
  checkMs: number;
  checkCpuMs: number;
  findings: number;
}

const TIME = '/usr/bin/time';

/**
 * `mqlab audit FILE --json --fail-on never` on a generated export of `count` queues, `runs` times:
 * each run's wall time (the process), and the audit's own read, check and check-CPU times.
 */
export async function offlineRuns(cli: string, count: number, runs: number): Promise<OfflineRun[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-bench-audit-'));
  const file = path.join(dir, `definitions-${count}.json`);
  fs.writeFileSync(file, JSON.stringify(topicDefinitions(count)));
  const out: OfflineRun[] = [];
  try {
    const timed = fs.existsSync(TIME);
    for (let i = 0; i < runs; i++) {
      const argv = ['node', cli, 'audit', file, '--json', '--fail-on', 'never'];
      const t = performance.now();
      const r = timed
        ? await execa(TIME, ['-f', 'mqlab-cpu %U %S', ...argv], { reject: false })
        : await execa(argv[0]!, argv.slice(1), { reject: false });
      const wallMs = performance.now() - t;
      if (r.exitCode !== 0) throw new Error(`mqlab audit ${file}: exit ${r.exitCode}: ${r.stderr.split('\n')[0]}`);
      const doc = JSON.parse(r.stdout) as {
        findings: unknown[];
        timings: { readMs: number; readCpuMs: number; checkMs: number; checkCpuMs: number };
      };
      const cpu = /mqlab-cpu ([\d.]+) ([\d.]+)/.exec(r.stderr);
      const cpuMs = cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : doc.timings.readCpuMs + doc.timings.checkCpuMs;
      out.push({ wallMs, cpuMs, ...doc.timings, findings: doc.findings.length });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
