/** mqlab up / down: pick a backend, start or stop it, and wait until the app can connect. */
import fs from 'node:fs';
import type { Config } from '../core/config.js';
import { EnvError, UsageError } from '../core/errors.js';
import { maskUrl } from '../core/urls.js';
import { dockerAvailability, dockerDown, dockerRunning, dockerUp } from './docker.js';
import { ensureSystemPackages, ownRunning, ownStart, ownStop, removeOutsideDirs } from './own-services.js';
import { allUp, probe, waitForServices, type Probe } from './probe.js';
import { hostOf } from './host.js';
import { ensureProgram } from './apt.js';
import { chrootRefusal, ensureRoot, removeTree, rootDir, rootVersions } from './debian-root.js';
import {
  claimHome,
  deletable,
  deleteHome,
  recordBackend,
  recordedBackend,
  recordedNodes,
  recordNodes,
} from './data-folder.js';
import { ownCluster, sweepInjectedFaults, waitForMembers, type NodeFailure } from './cluster.js';
import { endKeptPartition } from './cluster-watch.js';
import { MAX_NODES, urlsFor } from '../core/defaults.js';

/** docker: compose.yaml · chroot: Debian unstable's 4.3 + 18 in a private root · system: this machine's packages */
export type Backend = 'auto' | 'docker' | 'chroot' | 'system';

export function parseBackend(raw: string): Backend {
  if (raw === 'local') return 'system'; // the old name of the system backend
  if (raw === 'auto' || raw === 'docker' || raw === 'chroot' || raw === 'system') return raw;
  throw new UsageError(`unknown backend '${raw}'`, 'use --backend auto, docker, chroot or system');
}

const HOW_TO_GET_43 =
  'for RabbitMQ 4.3 + PostgreSQL 18 run `mqlab up` as root (chroot backend) or with a Docker engine';

async function choose(
  backend: Backend,
  recorded: string | null,
  log: (line: string) => void,
): Promise<Exclude<Backend, 'auto'>> {
  if (backend === 'chroot') {
    const why = await chrootRefusal();
    if (why)
      throw new EnvError(
        `cannot use the chroot backend: ${why}`,
        `${HOW_TO_GET_43}; or use --backend system (this machine's packages)`,
      );
  }
  if (backend !== 'auto') return backend;
  if (recorded === 'system' || recorded === 'chroot' || recorded === 'docker') {
    log(`backend: ${recorded} (the one this data folder was set up with; --backend picks another)`);
    return recorded;
  }
  const docker = await dockerAvailability();
  if (docker.use) {
    log(`backend: docker (${docker.why})`);
    return 'docker';
  }
  log(`not using Docker: ${docker.why}`);
  const why = await chrootRefusal();
  if (!why) {
    log(
      'backend: chroot (no Docker engine answers; RabbitMQ 4.3 and PostgreSQL 18 from Debian unstable in a private root)',
    );
    return 'chroot';
  }
  log(`backend: system (this machine's packages; no Docker engine answers and ${why}): ${HOW_TO_GET_43}`);
  return 'system';
}

export { hostOf };

/** "chroot (Debian sid root: rabbitmq-server 4.3.6-1, postgresql-18 18.6-1)", or null when mqlab started nothing here */
export function backendLine(config: Config): string | null {
  const name = recordedBackend(config.home);
  if (name === 'chroot')
    return `chroot (Debian root ${rootDir(config.home)}: ${rootVersions(rootDir(config.home)) || 'not built'})`;
  if (name === 'system') return "system (this machine's rabbitmq-server and postgresql packages)";
  return name;
}

/** `--nodes N`: 1 (one node) up to MAX_NODES (a cluster) */
export function parseNodes(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_NODES)
    throw new UsageError(
      `invalid --nodes '${raw}'`,
      `use a whole number from 1 to ${MAX_NODES} (3: a cluster of three RabbitMQ nodes)`,
    );
  return n;
}

/** `nodes` undefined: the node count that runs now (a running cluster stays a cluster), else 1 */
export async function up(
  config: Config,
  backend: Backend,
  log: (line: string) => void,
  asked?: number,
): Promise<Probe> {
  await sweepInjectedFaults(config, log);
  const before = await probe(config);
  const ownNodes = fs.existsSync(config.home) ? recordedNodes(config.home) : 1;
  const nodes = asked ?? (allUp(before) ? ownNodes : 1);
  // the partition and node-pause labs cut the links between the nodes with nft (as root only)
  if (nodes > 1 && process.getuid?.() === 0)
    await ensureProgram({ command: 'nft', versionArgs: ['--version'], pkg: 'nftables' }, log).catch((err: Error) =>
      log(`${err.message}: the labs that cut links between nodes (partition, node-pause) will say so`),
    );
  // a cluster answers on node 1 with a member down: not up, start what is missing (running nodes are kept)
  if (allUp(before) && ownNodes === nodes) {
    const membersUp =
      nodes === 1 ||
      (await waitForMembers(config, nodes, 5_000).then(
        () => true,
        () => false,
      ));
    if (membersUp) {
      log('services are already up');
      const whose = anotherSet(config);
      if (whose) log(`${whose}: the labs here use them, \`mqlab down\` here leaves them running; ${OWN_SET}`);
      report(config, before, log, nodes, whose === null);
      return before;
    }
    log(`a member of the ${nodes}-node cluster is not running: starting it`);
  }
  const chosen = await choose(backend, recordedBackend(config.home), log);
  if (nodes > 1 && chosen === 'docker')
    throw new UsageError(
      "--nodes runs a cluster on mqlab's own nodes, not with Docker",
      'use --backend chroot (RabbitMQ 4.3, as root) or --backend system',
    );
  let failure: NodeFailure = () => null;
  if (chosen === 'docker') {
    await dockerUp(log);
    if (fs.existsSync(config.home)) recordBackend(config.home, 'docker');
  } else {
    claimHome(config.home);
    const host = hostOf(config, chosen);
    if (chosen === 'chroot') await ensureRoot(config.home, log);
    else await ensureSystemPackages(host, log);
    recordBackend(config.home, chosen);
    failure = await ownStart(host, config.ports, nodes, log);
    recordNodes(config.home, nodes);
  }
  const ports = config.ports;
  let shown = 0;
  const ready = await waitForServices(config, 180_000, (p, elapsed) => {
    const died = failure();
    if (died) throw new EnvError(died.reason, died.hint);
    if (elapsed > 60_000 && /credentials refused/.test(`${p.amqp.error}`)) {
      throw new EnvError(
        `${p.amqp.error} although the broker answers`,
        `another broker may hold port ${ports.amqp}: stop it, set MQLAB_PORT_OFFSET, or point MQLAB_AMQP_URL at it`,
      );
    }
    const s = Math.floor(elapsed / 5000);
    if (s > shown) {
      shown = s;
      const pending = [
        p.amqp.ok ? '' : 'RabbitMQ',
        p.mgmt.ok ? '' : 'management API',
        p.pg.ok ? '' : 'PostgreSQL',
      ].filter(Boolean);
      log(`waiting for ${pending.join(', ')} to accept the lab accounts… ${Math.round(elapsed / 1000)} s`);
    }
  });
  if (nodes > 1) {
    const cluster = ownCluster(config, nodes);
    if (!('missing' in cluster)) await endKeptPartition(cluster, config.vhost, log);
    log(`waiting for ${nodes} cluster members to run…`);
    const m = await waitForMembers(config, nodes, 180_000, { failure, listeners: true });
    log(`cluster: ${m.map((x) => x.name).join(', ')} running`);
  }
  report(config, ready, log, nodes);
  return ready;
}

/** `ours`: the services run from this data folder (else its recorded backend says nothing of them) */
function report(config: Config, p: Probe, log: (line: string) => void, nodes = 1, ours = true) {
  const b = ours ? backendLine(config) : null;
  if (b) log(`backend: ${b}${nodes > 1 ? `, ${nodes} RabbitMQ nodes clustered` : ''}`);
  log(
    `RabbitMQ ${p.amqp.version}${p.mgmt.erlang ? ` (Erlang/OTP ${p.mgmt.erlang})` : ''} ready at ${maskUrl(config.amqpUrl)} (management ${maskUrl(config.mgmtUrl)})`,
  );
  log(`PostgreSQL ${p.pg.version} ready at ${maskUrl(config.pgUrl)}`);
}

const OWN_SET = "for a set of this folder's own, on free ports: MQLAB_PORT_OFFSET=100 mqlab up";

/**
 * Why the services on this set's ports are not this data folder's, or null: no node of it runs, on
 * mqlab's own URLs for these ports (not a broker the variables point at, not Docker's). Another checkout,
 * or another MQLAB_HOME, started them on the same ports.
 */
function anotherSet(config: Config): string | null {
  const own = urlsFor(config.ports);
  if (config.amqpUrl !== own.amqp || config.pgUrl !== own.pg || config.mgmtUrl !== own.mgmt) return null;
  if (recordedBackend(config.home) === 'docker') return null;
  if ((['chroot', 'system'] as const).some((kind) => ownRunning(hostOf(config, kind), config.ports))) return null;
  return `they do not run from this data folder (${config.home}) but from another mqlab set on the same ports (another checkout, or another MQLAB_HOME)`;
}

/**
 * The backend `down` stops: the one asked for, else the one `up` recorded in the data folder; with
 * no record, the host's own services when the data folder exists, else docker if a daemon answers.
 */
async function backendToStop(backend: Backend, home: string): Promise<string> {
  if (backend !== 'auto') return backend;
  const recorded = recordedBackend(home);
  if (recorded) return recorded;
  if (fs.existsSync(home)) return 'system';
  return (await dockerRunning()) ? 'docker' : 'system';
}

export async function down(
  config: Config,
  backend: Backend,
  volumes: boolean,
  log: (line: string) => void,
): Promise<void> {
  const chosen = await backendToStop(backend, config.home);
  if (chosen === 'docker') return dockerDown(volumes, log);
  await sweepInjectedFaults(config, log);
  const doomed = volumes ? deletable(config.home) : []; // refuses before anything is stopped
  // stop whatever mqlab runs from this data folder (both hosts: each is a no-op when nothing is there)
  const hosts = [hostOf(config, 'chroot'), hostOf(config, 'system')].filter(
    (h) => h.kind === chosen || ownRunning(h, config.ports),
  );
  // read before the stop: nothing of this data folder runs, so what answers on its ports is another set's
  const whose = anotherSet(config);
  for (const h of hosts) await ownStop(h, config.ports, log);
  if (whose && allUp(await probe(config)))
    log(`services still answer on these ports: ${whose}; that set's \`mqlab down\` stops them; ${OWN_SET}`);
  if (volumes && doomed.length) {
    removeOutsideDirs(hostOf(config, 'system'));
    await deleteHome(config.home, removeTree);
    log(
      `deleted ${config.home} (${doomed.join(', ')}): mqlab's RabbitMQ and PostgreSQL data${doomed.includes('root') ? ' and its Debian root' : ''}`,
    );
  } else if (volumes) log(`nothing to delete: ${config.home} does not exist`);
}
