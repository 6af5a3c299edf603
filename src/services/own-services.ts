/** mqlab's own RabbitMQ node and PostgreSQL cluster on a Host (this machine's packages, or the private Debian root). */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { execa } from 'execa';
import { MAX_NODES, type Ports } from '../core/defaults.js';
import { PROJECT_ROOT } from '../core/config.js';
import { EnvError } from '../core/errors.js';
import { pgBinDir, provisionPostgres, startPostgres, stopPostgres } from './postgres-cluster.js';
import {
  allNodeSpecs,
  featureFlagSyncRace,
  nodeCookie,
  nodeHasData,
  nodesFor,
  rabbitBin,
  rabbitPid,
  startRabbit,
  stopRabbit,
  type NodeSpec,
  type Started,
} from './rabbitmq-node.js';
import { sleep } from '../core/time.js';
import { outer, type Host } from './host.js';
import { oneInstallAtATime } from './apt.js';

/** install the machine's Debian packages when missing (the script prints the command when not root) */
export async function ensureSystemPackages(host: Host, log: (line: string) => void): Promise<void> {
  if (rabbitBin(host) && pgBinDir(host)) return;
  await oneInstallAtATime('apt', 'installing RabbitMQ and PostgreSQL', log, () => installSystemPackages(host, log));
}

async function installSystemPackages(host: Host, log: (line: string) => void): Promise<void> {
  if (rabbitBin(host) && pgBinDir(host)) return; // another up installed them meanwhile
  log('RabbitMQ or PostgreSQL binaries are missing: running scripts/install-services.sh');
  const r = await execa('bash', [path.join(PROJECT_ROOT, 'scripts', 'install-services.sh')], {
    reject: false,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.exitCode !== 0)
    throw new EnvError(
      'RabbitMQ and PostgreSQL are not installed',
      'run the command printed above, or use Docker: mqlab up --backend docker',
    );
}

/**
 * Start PostgreSQL and `nodes` RabbitMQ nodes (1: one node; 2–3: a cluster: on its first boot node 1
 * first, the others once it listens, joining it with its cookie; later all at once). Nodes of the other shape (a single node
 * before a cluster, or the reverse) are stopped first: they use the same ports.
 * Returns a liveness check for the wait that follows.
 */
export async function ownStart(
  host: Host,
  ports: Ports,
  nodes: number,
  log: (line: string) => void,
): Promise<() => { reason: string; hint: string } | null> {
  const wanted = nodesFor(ports, nodes);
  const others = allNodeSpecs(ports, MAX_NODES).filter(
    (n) => !wanted.some((w) => w.service === n.service) && rabbitPid(host, n),
  );
  if (others.length)
    log(
      `stopping ${others.map((n) => n.name).join(', ')} first (${nodes > 1 ? 'a single node ran' : 'a cluster ran'} on these ports)`,
    );
  await stopRabbit(host, others);
  const first = wanted[0]!;
  // a cluster that booted before restarts all at once (each node waits for its peers); a new one joins node 1 once it runs
  const rejoin = wanted.length > 1 && wanted.slice(1).every((n) => nodeHasData(host, n));
  const cookie = nodeCookie(host, first);
  const peersStarting = rejoin
    ? Promise.all(wanted.slice(1).map((n) => startRabbit(host, n, cookie)))
    : Promise.resolve([]);
  const [rabbit, pg, peers] = await Promise.all([
    startRabbit(host, first),
    startPostgres(host, ports, log),
    peersStarting,
  ]);
  const where = (s: Started) => path.relative(process.cwd(), s.log) || s.log;
  log(
    `RabbitMQ node ${first.name} ${rabbit.state === 'running' ? 'already running' : 'starting'} (logs: ${where(rabbit)})`,
  );
  log(`PostgreSQL cluster ${pg === 'running' ? 'already running' : 'started'}`);
  await provisionPostgres(host.home, ports, log);
  const started = [rabbit];
  if (wanted.length > 1) {
    if (!rejoin) await listening(first, rabbit);
    const joinCookie = cookie ?? nodeCookie(host, first);
    for (const [k, n] of wanted.slice(1).entries()) {
      const s = rejoin ? peers[k]! : await startRabbit(host, n, joinCookie);
      log(
        `RabbitMQ node ${n.name} ${s.state === 'running' ? 'already running' : rejoin ? 'starting (rejoins its cluster)' : 'starting, joins ' + first.name} (AMQP ${n.ports.amqp}, management ${n.ports.management}; logs: ${where(s)})`,
      );
      started.push(s);
    }
  }
  // a cluster restarting at once on 3.10 can lose a node to its feature-flag sync race: that node starts once more
  const again = new Set<number>();
  return () => {
    for (const [k, s] of started.entries()) {
      const reason = s.failure();
      if (reason === null) continue;
      if (rejoin && !again.has(k) && featureFlagSyncRace(reason)) {
        again.add(k);
        const spec = wanted[k]!;
        log(
          `RabbitMQ node ${spec.name} exited at boot on a peer not yet booted (RabbitMQ 3.10's feature-flag sync race, ` +
            `{badmap,undefined} in its crash dump): starting it once more`,
        );
        started[k] = { state: 'started', failure: () => null, hint: s.hint, log: s.log };
        void startRabbit(host, spec, k === 0 ? undefined : cookie).then(
          (next) => (started[k] = next),
          (err: Error) => (started[k] = { ...s, failure: () => err.message }),
        );
        continue;
      }
      return { reason, hint: s.hint() };
    }
    return null;
  };
}

/** wait until node 1 of a cluster accepts TCP on its AMQP port (the others join a node that runs) */
async function listening(spec: NodeSpec, s: Started): Promise<void> {
  const end = Date.now() + 180_000;
  while (Date.now() < end) {
    const failed = s.failure();
    if (failed) throw new EnvError(failed, s.hint());
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect(spec.ports.amqp, '127.0.0.1');
      sock.once('connect', () => (sock.destroy(), resolve(true)));
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(500);
  }
  throw new EnvError(
    `RabbitMQ node ${spec.name} did not listen on port ${spec.ports.amqp} within 180 s`,
    `see ${s.log}`,
  );
}

/** stop every node mqlab may run from this data folder (single or cluster) and PostgreSQL */
export async function ownStop(host: Host, ports: Ports, log: (line: string) => void): Promise<void> {
  const [stopped, pg] = await Promise.all([stopRabbit(host, allNodeSpecs(ports, MAX_NODES)), stopPostgres(host)]);
  log(
    stopped.length
      ? `RabbitMQ node${stopped.length > 1 ? 's' : ''} ${stopped.join(', ')} stopped`
      : 'RabbitMQ node was not running',
  );
  log(pg ? 'PostgreSQL cluster stopped' : 'PostgreSQL cluster was not running');
}

export const ownRunning = (host: Host, ports: Ports) =>
  allNodeSpecs(ports, MAX_NODES).some((n) => rabbitPid(host, n) !== null);

/** the RabbitMQ and PostgreSQL a host's packages hold ("RabbitMQ 3.10.8, PostgreSQL 15") and its line ("3.10") */
export function installedVersions(host: Host): { line: string | null; text: string } {
  const lib = outer(host, '/usr/lib/rabbitmq/lib');
  const rabbit = (fs.existsSync(lib) ? fs.readdirSync(lib) : [])
    .map((d) => /^rabbitmq_server-(\d+\.\d+\.\d+)/.exec(d)?.[1])
    .find((v) => v !== undefined);
  const pg = pgBinDir(host)?.split('/')[4];
  return {
    line: rabbit ? rabbit.split('.').slice(0, 2).join('.') : null,
    text: `RabbitMQ ${rabbit ?? 'not installed'}, PostgreSQL ${pg ?? 'not installed'}`,
  };
}
