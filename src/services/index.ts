/** mqlab up / down: pick a backend, start or stop it, and wait until the app can connect. */
import fs from 'node:fs';
import type { Config } from '../core/config.js';
import { EnvError, UsageError } from '../core/errors.js';
import { maskUrl } from '../core/urls.js';
import { rememberSecrets } from '../core/secrets.js';
import { dockerAvailability, dockerDown, dockerRunning, dockerUp } from './docker.js';
import { ensureSystemPackages, installedVersions, ownRunning, ownStart, ownStop } from './own-services.js';
import { allUp, probe, waitForServices, type Probe } from './probe.js';
import { hostOf, removeOutsideDir } from './host.js';
import { pointsAt } from './control.js';
import { adoptSecrets } from './accounts.js';
import { adoptOwnAccounts } from './service-accounts.js';
import { ensureProgram } from './apt.js';
import { chrootRefusal, ensureRoot, removeTree, rootDir, rootVersions } from './debian-root.js';
import {
  claimHome,
  deletable,
  deleteHome,
  recordBackend,
  recordedBackend,
  recordedLineName,
  recordedNodes,
  recordLine,
  recordNodes,
} from './data-folder.js';
import { DEFAULT_LINE, LINE_NAMES, lineSpec, rootLine, type Line } from './lines.js';
import { ownCluster, sweepInjectedFaults, waitForMembers, type NodeFailure } from './cluster.js';
import { endKeptPartition } from './cluster-watch.js';
import { BASE_PORTS, MAX_NODES, urlsFor } from '../core/defaults.js';
import { adminPassword, ensureSecrets, readSecrets } from '../core/account-secrets.js';

/** docker: compose.yaml · chroot: Debian unstable's 4.3 + 18 in a private root · system: this machine's packages */
type Backend = 'auto' | 'docker' | 'chroot' | 'system';

export function parseBackend(raw: string): Backend {
  if (raw === 'local') return 'system'; // the old name of the system backend
  if (raw === 'auto' || raw === 'docker' || raw === 'chroot' || raw === 'system') return raw;
  throw new UsageError(`unknown backend '${raw}'`, 'use --backend auto, docker, chroot or system');
}

const HOW_TO_GET_43 =
  'for RabbitMQ 4.3 + PostgreSQL 18 run `mqlab up` as root (chroot backend) or with a Docker engine';

/**
 * The line a data folder holds: recorded by `up --line`, else the one its backend ran before lines
 * were recorded (chroot and docker: 4.3; system: 3.10); null when `up` never ran there.
 */
function recordedLine(home: string): Line | null {
  const named = recordedLineName(home);
  if (named && LINE_NAMES.includes(named)) return named as Line;
  const backend = recordedBackend(home);
  if (backend === 'chroot' || backend === 'docker') return '4.3';
  return backend === 'system' ? '3.10' : null;
}

/** the data folder holds a line's services' data (not just its marker and records) */
const holdsData = (home: string) =>
  fs.existsSync(home) && fs.readdirSync(home).some((e) => /^(root|postgres|rabbitmq(-c\d+)?)$/.test(e));

/** another line than the one asked for holds this data folder's data: refuse, saying how to run both */
function checkLine(config: Config, asked: Line | undefined): void {
  const held = recordedLine(config.home);
  if (!asked || !held || held === asked || !holdsData(config.home)) return;
  const offset = config.ports.amqp - BASE_PORTS.amqp;
  throw new EnvError(
    `${config.home} holds line ${held}'s data (${lineSpec(held).runs}), not line ${asked}'s`,
    `run line ${asked} beside it, in a data folder and on ports of its own: ` +
      `MQLAB_HOME=${config.home}-${asked} MQLAB_PORT_OFFSET=${offset + 100} mqlab up --line ${asked} ` +
      `(and the same two variables for every command on it); or \`mqlab down --volumes\` first (deletes line ${held}'s data)`,
  );
}

interface Chosen {
  backend: Exclude<Backend, 'auto'>;
  line: Line;
}

/** the backend of an asked line: --backend must agree with it (docker and chroot run 4.3; chroot 4.0; system 3.10) */
async function chooseForLine(backend: Backend, line: Line, log: (line: string) => void): Promise<Chosen> {
  const spec = lineSpec(line);
  const allowed: Backend[] = line === '4.3' ? ['auto', 'docker', 'chroot'] : ['auto', spec.backend];
  if (!allowed.includes(backend))
    throw new UsageError(
      `--line ${line} runs ${spec.runs}${spec.backend === 'chroot' ? ' in a private Debian root' : ''}, not with --backend ${backend}`,
      `leave out --backend, or use --backend ${allowed.filter((b) => b !== 'auto').join(' or ')}`,
    );
  if (spec.backend === 'system') return { backend: 'system', line };
  if (backend === 'auto' && line === '4.3') {
    const docker = await dockerAvailability();
    if (docker.use) {
      log(`backend: docker (${docker.why})`);
      return { backend: 'docker', line };
    }
  }
  if (backend === 'docker') return { backend, line };
  const why = await chrootRefusal();
  if (why)
    throw new EnvError(
      `cannot start line ${line} (${spec.runs} in a private Debian root): ${why}`,
      line === '4.3' ? HOW_TO_GET_43 : 'run `mqlab up --line 4.0` as root',
    );
  return { backend: 'chroot', line };
}

async function choose(
  backend: Backend,
  asked: Line | undefined,
  home: string,
  log: (line: string) => void,
): Promise<Chosen> {
  const recorded = recordedBackend(home);
  const held = recordedLine(home);
  if (asked) return chooseForLine(backend, asked, log);
  // the backend a data folder holds keeps its line; another backend asked for gets that backend's line
  const lineOf = (b: Exclude<Backend, 'auto'>): Line =>
    b === 'system' ? '3.10' : b === 'chroot' && held && lineSpec(held).backend === 'chroot' ? held : DEFAULT_LINE;
  if (backend === 'chroot') {
    const why = await chrootRefusal();
    if (why)
      throw new EnvError(
        `cannot use the chroot backend: ${why}`,
        `${HOW_TO_GET_43}; or use --backend system (this machine's packages)`,
      );
  }
  if (backend !== 'auto') return { backend, line: lineOf(backend) };
  if (recorded === 'system' || recorded === 'chroot' || recorded === 'docker') {
    log(
      `backend: ${recorded}, line ${lineOf(recorded)} (the one this data folder was set up with; --line or --backend picks another)`,
    );
    return { backend: recorded, line: lineOf(recorded) };
  }
  const docker = await dockerAvailability();
  if (docker.use) {
    log(`backend: docker (${docker.why})`);
    return { backend: 'docker', line: '4.3' };
  }
  log(`not using Docker: ${docker.why}`);
  const why = await chrootRefusal();
  if (!why) {
    log(
      'backend: chroot (no Docker engine answers; RabbitMQ 4.3 and PostgreSQL 18 from Debian unstable in a private root)',
    );
    return { backend: 'chroot', line: DEFAULT_LINE };
  }
  log(`backend: system (this machine's packages; no Docker engine answers and ${why}): ${HOW_TO_GET_43}`);
  return { backend: 'system', line: '3.10' };
}

export { hostOf };

/**
 * "chroot, line 4.0 (Debian 13 (trixie) root …/root: rabbitmq-server 4.0.5-6+deb13u2, postgresql-17 …)",
 * or null when mqlab started nothing here
 */
function backendLine(config: Pick<Config, 'home'>): string | null {
  const name = recordedBackend(config.home);
  const line = recordedLine(config.home);
  if (name === 'chroot') {
    const spec = rootLine(line && lineSpec(line).backend === 'chroot' ? line : DEFAULT_LINE);
    const root = rootDir(config.home);
    return `chroot, line ${spec.line} (${spec.release} root ${root}: ${rootVersions(root) || 'not built'})`;
  }
  if (name === 'system') {
    const v = installedVersions(hostOf(config, 'system'));
    return `system, line ${v.line ?? '?'} (this machine's packages: ${v.text})`;
  }
  if (name === 'docker') return 'docker, line 4.3 (compose.yaml)';
  return name;
}

/**
 * backendLine of the services the run's URLs reach: null when the URLs name services of the user's own
 * (MQLAB_AMQP_URL …: `status` then describes the broker it reached, not this folder's backend), or when
 * the services on this set's ports run from another data folder
 */
export function reachedBackendLine(config: Config): string | null {
  return ownPorts(config) && anotherSet(config) === null ? backendLine(config) : null;
}

/** the run's three URLs reach this set's ports on 127.0.0.1 (whatever their accounts) */
const ownPorts = (config: Config) =>
  pointsAt(config.amqpUrl, config.ports.amqp) &&
  pointsAt(config.pgUrl, config.ports.postgres) &&
  pointsAt(config.mgmtUrl, config.ports.management);

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
  line?: Line,
): Promise<Probe> {
  checkLine(config, line);
  config = withSecret(config); // an up before this one (it held the up-lock) may have made the secrets
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
      const ownBackend = ['chroot', 'system'].includes(recordedBackend(config.home) ?? '');
      if (whose === null && ownBackend && ownPorts(config) && (await adoptSecrets(config, log))) {
        config = withSecret(config);
        const now = await waitForServices(config, 30_000);
        report(config, now, log, nodes);
        return now;
      }
      report(config, before, log, nodes, whose === null);
      return before;
    }
    log(`a member of the ${nodes}-node cluster is not running: starting it`);
  }
  refuseAnotherSetsManagement(config, before);
  const { backend: chosen, line: chosenLine } = await choose(backend, line, config.home, log);
  if (nodes > 1 && chosen === 'docker')
    throw new UsageError(
      "--nodes runs a cluster on mqlab's own nodes, not with Docker",
      'use --backend chroot (as root) or --backend system',
    );
  let failure: NodeFailure = () => null;
  if (chosen === 'docker') {
    await dockerUp(log);
    if (fs.existsSync(config.home)) recordBackend(config.home, 'docker');
  } else {
    claimHome(config.home);
    ensureSecrets(config.home);
    config = withSecret(config);
    const host = hostOf(config, chosen);
    if (chosen === 'chroot') await adoptOwnAccounts(await ensureRoot(config.home, rootLine(chosenLine), log), log);
    else await ensureSystemPackages(host, log);
    recordBackend(config.home, chosen);
    recordLine(config.home, chosenLine);
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

/** the config with the management URL of the data folder's secret, where it had the default of a folder without one */
function withSecret(config: Config): Config {
  if (config.mgmtUrl !== urlsFor(config.ports).mgmt || !readSecrets(config.home)) return config;
  const mgmtUrl = urlsFor(config.ports, adminPassword(config.home)).mgmt;
  rememberSecrets(mgmtUrl);
  return { ...config, mgmtUrl };
}

/**
 * The lab account gets in on these ports but the management account does not: the services are another
 * data folder's, whose management password is that folder's secret (account-secrets.ts). Starting
 * ours would find the ports taken: say whose they may be instead.
 */
function refuseAnotherSetsManagement(config: Config, p: Probe): void {
  const theirs = p.amqp.ok && p.pg.ok && !p.mgmt.ok && /credentials refused/.test(`${p.mgmt.error}`);
  if (!theirs || (['chroot', 'system'] as const).some((kind) => ownRunning(hostOf(config, kind), config.ports))) return;
  throw new EnvError(
    `services answer on these ports, but the management API refuses the account of ${config.home}: they run from another data folder`,
    "point MQLAB_HOME at that folder (its secrets.json has the management password), or set MQLAB_MGMT_URL; for a set of this folder's own: MQLAB_PORT_OFFSET=100 mqlab up",
  );
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
  const own = urlsFor(config.ports, adminPassword(config.home));
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
  const after = whose ? await probe(config) : null;
  if (after?.amqp.ok && after.pg.ok)
    log(`services still answer on these ports: ${whose}; that set's \`mqlab down\` stops them; ${OWN_SET}`);
  if (volumes && doomed.length) {
    await deleteHome(config.home, removeTree, (service) => removeOutsideDir(hostOf(config, 'system'), service));
    log(
      `deleted ${config.home} (${doomed.join(', ')}): mqlab's RabbitMQ and PostgreSQL data${doomed.includes('root') ? ' and its Debian root' : ''}`,
    );
  } else if (volumes) log(`nothing to delete: ${config.home} does not exist`);
}
