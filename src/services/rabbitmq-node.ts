/**
 * mqlab's own RabbitMQ node, from the rabbitmq-server package of a Host (this machine's, or the
 * private Debian root's): own node name, ports, epmd, data, logs and config (the same definitions
 * and advanced.config as compose.yaml). As root it runs as the package's `rabbitmq` account; its
 * Erlang distribution listens on 127.0.0.1 only, with a random cookie (0400) per data folder. A
 * cluster node's distribution listens on, and connects from, its own loopback address (defaults.ts
 * nodeAddress; a long name on it), so the links between nodes can be cut (link-cut.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import {
  ACCOUNTS,
  clusterNodeName,
  NET_TICKTIME_S,
  nodeAddress,
  nodePorts,
  SINGLE_NODE_NAME,
  type Ports,
} from '../core/defaults.js';
import { readSecrets } from '../core/account-secrets.js';
import { PROJECT_ROOT } from '../core/config.js';
import { EnvError } from '../core/errors.js';
import { pidRuns, waitGone } from './process.js';
import {
  account,
  chownTo,
  command,
  existingServiceDir,
  outer,
  run,
  serviceDir,
  type Account,
  type Host,
} from './host.js';

/**
 * One node: its folder (under the data folder, or /mqlab in a root), its Erlang node name, its
 * ports, and for a cluster node the names of every member (classic peer discovery).
 */
export interface NodeSpec {
  service: string;
  name: string;
  ports: Ports;
  /**
   * a cluster node's peer-discovery list for its first boot: empty for node 1, which boots alone (on 4.3 a
   * virgin node whose peers are not up yet retried discovery for 107 s before it went on alone: a fresh
   * `up --nodes 3` took 125 s), every node for the others, which join node 1 once it listens
   */
  peers?: string[];
  /** a cluster node's own address (its distribution listens on and connects from it) and every member's */
  dist?: { address: string; addresses: string[] };
}

const singleNode = (ports: Ports): NodeSpec => ({ service: 'rabbitmq', name: SINGLE_NODE_NAME, ports });

/** the nodes of `mqlab up --nodes n` (n ≥ 2): rabbitmq-c1 … on ports + 0, 10, 20, each on its own address */
export function clusterNodes(ports: Ports, n: number): NodeSpec[] {
  const peers = Array.from({ length: n }, (_, k) => clusterNodeName(ports, k + 1));
  const addresses = peers.map((_, k) => nodeAddress(ports, k + 1));
  return peers.map((name, k) => ({
    service: `rabbitmq-c${k + 1}`,
    name,
    ports: nodePorts(ports, k + 1),
    peers: k === 0 ? [] : peers,
    dist: { address: addresses[k]!, addresses },
  }));
}

/** the nodes for a node count: one single node, or a cluster */
export const nodesFor = (ports: Ports, n: number): NodeSpec[] => (n > 1 ? clusterNodes(ports, n) : [singleNode(ports)]);

/** every node folder mqlab may have made (a single node and the largest cluster) */
export const allNodeSpecs = (ports: Ports, max: number): NodeSpec[] => [singleNode(ports), ...clusterNodes(ports, max)];

const CONFIG_FILES = ['advanced.config', 'enabled_plugins'];

/**
 * RabbitMQ's stored form of a password (rabbit_password_hashing_sha256, the default of 3.10 to 4.3):
 * base64 of a 4-byte salt followed by sha256(salt ++ password)
 */
export function passwordHash(password: string, salt: Buffer = crypto.randomBytes(4)): string {
  const hash = crypto
    .createHash('sha256')
    .update(Buffer.concat([salt, Buffer.from(password, 'utf8')]))
    .digest();
  return Buffer.concat([salt, hash]).toString('base64');
}

/**
 * config/rabbitmq/definitions.json with the management account's password set to the data folder's
 * secret (the node imports it at every boot: the account, its tags and password follow the file)
 */
export function nodeDefinitions(template: string, adminSecret: string | undefined): string {
  const defs = JSON.parse(template) as { users: { name: string; password_hash: string }[] };
  if (adminSecret !== undefined)
    for (const u of defs.users) if (u.name === ACCOUNTS.admin.user) u.password_hash = passwordHash(adminSecret);
  return JSON.stringify(defs, null, 2) + '\n';
}

export function rabbitBin(host: Host): string | null {
  for (const p of ['/usr/lib/rabbitmq/bin/rabbitmq-server', '/usr/sbin/rabbitmq-server'])
    if (fs.existsSync(outer(host, p))) return p;
  return null;
}

/**
 * the node's CLI: the package's own script, not Debian's /usr/sbin wrapper — that one cds to
 * /var/lib/rabbitmq and takes HOME from there when it holds a cookie (the machine's node's, not this
 * node's); `rabbitmqctl` on PATH where neither exists
 */
export function rabbitCtl(host: Host): string {
  return (
    ['/usr/lib/rabbitmq/bin/rabbitmqctl', '/usr/sbin/rabbitmqctl'].find((p) => fs.existsSync(outer(host, p))) ??
    'rabbitmqctl'
  );
}

export const rabbitAccount = (host: Host) => account(host, ['rabbitmq', 'nobody']);

function paths(dir: string) {
  return {
    dir,
    data: path.join(dir, 'data'),
    log: path.join(dir, 'log'),
    conf: path.join(dir, 'rabbitmq.conf'),
    pid: path.join(dir, 'rabbitmq.pid'),
    cookie: path.join(dir, '.erlang.cookie'),
  };
}

const erlangIp = (address: string) => `{${address.split('.').join(',')}}`;

/**
 * The node's environment (inner paths): everything under its own folder, nothing from /etc/rabbitmq.
 * `dist` (a cluster node): a long name on its own address, distribution listening on it and connecting
 * from it, and the set's epmd listening on every member's address too (a node asks the epmd at the
 * address of the node it connects to). The CLI tools connect from 127.0.0.1: never cut.
 */
export function rabbitEnv(
  dir: string,
  ports: Ports,
  node: string = SINGLE_NODE_NAME,
  busyWait = true,
  dist?: NodeSpec['dist'],
): Record<string, string> {
  const p = paths(dir);
  // a cluster's nodes (and the CLI talking to them) share a shorter failure detector: NET_TICKTIME_S
  const ticktime = dist ? ` -kernel net_ticktime ${NET_TICKTIME_S}` : '';
  const loopbackDist = dist
    ? `-kernel inet_dist_use_interface ${erlangIp(dist.address)} -kernel inet_dist_connect_options [{ip,${erlangIp(dist.address)}}]${ticktime}`
    : '-kernel inet_dist_use_interface {127,0,0,1}';
  const cliDist = `-kernel inet_dist_use_interface {127,0,0,1}${ticktime}`;
  // a cluster's nodes share the machine: schedulers that do not spin when idle leave the CPU to the others
  const calm = busyWait ? '' : ' +sbwt none +sbwtdcpu none +sbwtdio none';
  return {
    HOME: p.dir, // the Erlang cookie lives here, not in the user's home
    RABBITMQ_NODENAME: node,
    RABBITMQ_CONF_ENV_FILE: '/dev/null', // ignore /etc/rabbitmq/rabbitmq-env.conf of a system install
    RABBITMQ_CONFIG_FILE: p.conf,
    RABBITMQ_ADVANCED_CONFIG_FILE: path.join(p.dir, 'advanced.config'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(p.dir, 'enabled_plugins'),
    RABBITMQ_MNESIA_BASE: p.data,
    RABBITMQ_LOG_BASE: p.log,
    RABBITMQ_PID_FILE: p.pid,
    RABBITMQ_DIST_PORT: String(ports.erlangDist),
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: loopbackDist + calm,
    RABBITMQ_CTL_ERL_ARGS: cliDist,
    ERL_EPMD_PORT: String(ports.epmd),
    ERL_EPMD_ADDRESS: ['127.0.0.1', ...(dist?.addresses ?? [])].join(','),
    ...(dist ? { RABBITMQ_USE_LONGNAME: 'true' } : {}),
  };
}

function confText(host: Host, dir: string, ports: Ports, peers: string[] = []): string {
  return [
    '# written by `mqlab up`; edit src/services/rabbitmq-node.ts instead',
    // a root has no /proc: memory use from the Erlang allocators, not /proc/self
    ...(host.root ? ['vm_memory_calculation_strategy = allocated', 'total_memory_available_override_value = 2GB'] : []),
    `listeners.tcp.default = 127.0.0.1:${ports.amqp}`,
    `management.tcp.ip = 127.0.0.1`,
    `management.tcp.port = ${ports.management}`,
    `load_definitions = ${path.join(dir, 'definitions.json')}`,
    // a cluster node joins the others on its first boot (later boots remember the cluster)
    ...(peers.length
      ? [
          'cluster_formation.peer_discovery_backend = classic_config',
          ...peers.map((n, k) => `cluster_formation.classic_config.nodes.${k + 1} = ${n}`),
        ]
      : []),
    '',
  ].join('\n');
}

/** the node's files, owned by its account: config copied from config/rabbitmq, a random cookie once (or `cookie`: a cluster's) */
function writeFiles(host: Host, dir: string, spec: NodeSpec, who: Account, cookieText?: string): void {
  const ports = spec.ports;
  const p = paths(dir);
  const put = (inner: string, text: string | Buffer, mode: number) => {
    const file = outer(host, inner);
    fs.rmSync(file, { force: true });
    fs.writeFileSync(file, text, { mode });
    chownTo(file, who);
  };
  for (const d of [p.data, p.log]) {
    fs.mkdirSync(outer(host, d), { recursive: true, mode: 0o700 });
    chownTo(outer(host, d), who);
  }
  put(p.conf, confText(host, dir, ports, spec.peers), 0o600);
  for (const f of CONFIG_FILES)
    put(path.join(dir, f), fs.readFileSync(path.join(PROJECT_ROOT, 'config', 'rabbitmq', f)), 0o600);
  const template = fs.readFileSync(path.join(PROJECT_ROOT, 'config', 'rabbitmq', 'definitions.json'), 'utf8');
  put(path.join(dir, 'definitions.json'), nodeDefinitions(template, readSecrets(host.home)?.admin), 0o600);
  const cookie = outer(host, p.cookie);
  if (cookieText !== undefined && (!fs.existsSync(cookie) || fs.readFileSync(cookie, 'utf8') !== cookieText))
    put(p.cookie, cookieText, 0o400);
  if (!fs.existsSync(cookie)) put(p.cookie, crypto.randomBytes(24).toString('hex').toUpperCase(), 0o400);
  fs.chmodSync(cookie, 0o400);
}

/** the Erlang cookie of a node that has one (a cluster's other nodes copy node 1's) */
export function nodeCookie(host: Host, spec: NodeSpec): string | undefined {
  const dir = existingServiceDir(host, spec.service);
  const file = dir && outer(host, paths(dir).cookie);
  return file && fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
}

/**
 * has the node booted before under its name (its data folder holds that name's database)? A clustered
 * node that has remembers its peers. A node whose name changed (the layout before per-node addresses
 * named them …@localhost) boots as a new one: node 1 first, the others join it.
 */
export function nodeHasData(host: Host, spec: NodeSpec): boolean {
  const dir = existingServiceDir(host, spec.service);
  const data = dir && outer(host, path.join(paths(dir).data, spec.name));
  return Boolean(data && fs.existsSync(data) && fs.readdirSync(data).length > 0);
}

/** what the node's VM command line ends an argument with: -home <…>/<service> */
export const nodeMarker = (service: string) => `/${service}`;

/** the node's own log file (where RabbitMQ writes it; null when the node has no folder here) */
export function rabbitLog(host: Host, spec: Pick<NodeSpec, 'service' | 'name'>): string | null {
  const dir = existingServiceDir(host, spec.service);
  return dir ? logFile(host, dir, spec) : null;
}

const logFile = (host: Host, dir: string, spec: Pick<NodeSpec, 'name'>) =>
  outer(host, path.join(paths(dir).log, `${spec.name}.log`));

/**
 * The OS process id of the node's Erlang VM, while that process is the node: from its pid file, else
 * found among the running processes (and the pid file written again). A node can run without its
 * pid file: a second start of the same node (two runs restarting it at once) fails on the taken
 * distribution port and, exiting, removes the pid file the first one wrote; every later start then
 * saw "not running", started another copy and failed the same way (`exited (code 1) during
 * startup`, dist_port_already_used in its console log).
 */
export function rabbitPid(host: Host, spec: Pick<NodeSpec, 'service'> = { service: 'rabbitmq' }): number | null {
  const dir = existingServiceDir(host, spec.service);
  if (!dir) return null;
  const file = outer(host, paths(dir).pid);
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    if (pid > 0 && pidRuns(pid, nodeMarker(spec.service))) return pid;
  } catch {
    /* no pid file: look for the process */
  }
  const found = runningNode(host, dir);
  if (found) fs.writeFileSync(file, `${found}\n`);
  return found;
}

/** the Erlang VM whose -home is this node's folder, in this host's root (chroot: every set's node has the same inner path) */
function runningNode(host: Host, dir: string): number | null {
  if (!fs.existsSync('/proc/self/cmdline')) return null;
  const root = path.resolve(host.root || '/');
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!args[0]?.endsWith('beam.smp')) continue;
      const home = args.indexOf('-home');
      if (home < 0 || args[home + 1] !== dir) continue;
      if (path.resolve(fs.readlinkSync(`/proc/${entry}/root`)) !== root) continue;
      return Number(entry);
    } catch {
      /* ended meanwhile, or not ours to read */
    }
  }
  return null;
}

export interface Started {
  state: 'started' | 'running';
  /** null while the node lives; once it has exited, why (its crash dump's slogan, else the last line of its console log) */
  failure: () => string | null;
  /** what to do once it failed: the node's own log folder, and the ports when the reason is a port taken */
  hint: () => string;
  log: string;
}

/**
 * Why a node's VM ended at boot, from what it left: the crash dump's `Slogan:` (the reason the
 * application controller got: `{application_start_failure,rabbit,…}`), else the last line its console
 * log printed that is not the "crash dump is being written" notice.
 */
export function bootFailure(crashDumpHead: string | null, consoleText: string): string {
  const slogan = crashDumpHead?.match(/^Slogan: (.*)$/m)?.[1]?.trim();
  if (slogan) return slogan;
  return (
    consoleText
      .trim()
      .split('\n')
      .filter((l) => !/crash dump|^$/i.test(l))
      .pop() ?? ''
  );
}

/**
 * a reason that says a port was taken: the one it names (a listener that could not start: AMQP or
 * management; the distribution port), else true (a listen error without its port)
 */
export function portTaken(reason: string): number | boolean {
  // could_not_start_listener: rabbit_networking; "distribution port N": rabbit_prelaunch_errors (3.10.8, 4.3.5)
  const named = reason.match(/could_not_start_listener,"?[\d.:]+"?,(\d+)|distribution port (\d+)/);
  if (named) return Number(named[1] ?? named[2]);
  return /eaddrinuse|dist_port_already_used/i.test(reason);
}

/**
 * RabbitMQ 3.10's boot race when a cluster restarts all at once: a node syncing its feature flags
 * asks a peer whose VM answers but whose feature-flag registry is not loaded yet, and the peer's
 * `do_sync_feature_flags_with_node/1` fails on `maps:get(depends_on, undefined)`; the node then exits
 * with `{incompatible_feature_flags,{badrpc,{'EXIT',{{badmap,undefined},…}}}}` (rabbit_mnesia
 * `ensure_feature_flags_are_in_sync/2` and rabbit_feature_flags `sync_feature_flags_with_cluster1/2`
 * at v3.10.8; the registry is an uninitialised stub until `initialize_registry/0` runs). Nothing is
 * incompatible: the same node boots on its next start. 3.11 replaced this sync (rabbit_ff_controller).
 */
export const featureFlagSyncRace = (reason: string) =>
  /incompatible_feature_flags/.test(reason) && /\{badmap,undefined\}/.test(reason);

const readHead = (file: string, bytes: number): string | null => {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(bytes);
      return buf.subarray(0, fs.readSync(fd, buf, 0, bytes, 0)).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
};

/** start the node in the background unless it runs already; readiness is checked by the caller */
export async function startRabbit(host: Host, spec: NodeSpec, cookie?: string): Promise<Started> {
  const bin = rabbitBin(host);
  if (!bin)
    throw new EnvError(
      'rabbitmq-server is not installed',
      'run `bash scripts/install-services.sh` (as root), or use Docker: mqlab up --backend docker',
    );
  const who = rabbitAccount(host);
  const dir = await serviceDir(host, spec.service, who);
  const log = logFile(host, dir, spec);
  let exited: string | null = null;
  const hint = () => {
    const where = `see ${path.relative(process.cwd(), path.dirname(log)) || path.dirname(log)}/`;
    const p = spec.ports;
    const taken = exited ? portTaken(exited) : false;
    if (typeof taken === 'number') return `${where}; is another program using port ${taken}?`;
    return taken ? `${where}; is another program using port ${p.amqp}, ${p.management} or ${p.erlangDist}?` : where;
  };
  if (rabbitPid(host, spec)) return { state: 'running', failure: () => null, hint, log };
  writeFiles(host, dir, spec, who, cookie);
  const consoleLog = outer(host, path.join(paths(dir).log, 'console.log'));
  // the VM writes its crash dump into the log folder (RabbitMQ's prelaunch sets ERL_CRASH_DUMP there)
  const crashDump = outer(host, path.join(paths(dir).log, 'erl_crash.dump'));
  fs.rmSync(crashDump, { force: true });
  const out = fs.openSync(consoleLog, 'w');
  const c = command(host, who, bin, [], rabbitEnv(dir, spec.ports, spec.name, !spec.peers, spec.dist), dir);
  const child = spawn(c.file, c.args, { ...c.options, detached: true, stdio: ['ignore', out, out] });
  child.on('error', (err) => (exited = `the RabbitMQ node could not be started: ${err.message}`));
  child.on('exit', (code, sig) => {
    const reason = bootFailure(readHead(crashDump, 8192), fs.readFileSync(consoleLog, 'utf8'));
    exited = `the RabbitMQ node ${spec.name} exited (${sig ?? `code ${code}`}) during startup: ${reason.slice(0, 400)}`;
  });
  child.unref();
  fs.closeSync(out);
  return { state: 'started', failure: () => exited, hint, log };
}

/** stop one node (SIGTERM: the Erlang VM shuts the node down cleanly); true when it was running */
export async function stopNode(host: Host, spec: NodeSpec): Promise<boolean> {
  const pid = rabbitPid(host, spec);
  if (pid) {
    process.kill(pid, 'SIGTERM');
    if (!(await waitGone(pid, 60_000, nodeMarker(spec.service)))) process.kill(pid, 'SIGKILL');
  }
  return pid !== null;
}

/** stop `nodes` at once (a cluster's together: none waits for a peer that is gone), then their epmd; the names of those that ran */
export async function stopRabbit(host: Host, nodes: NodeSpec[]): Promise<string[]> {
  const stopped = await Promise.all(nodes.map(async (n) => ((await stopNode(host, n)) ? n.name : null)));
  const ran = stopped.filter((n): n is string => n !== null);
  // the nodes started their own epmd on a private port; stop it too — only when this data folder's
  // node ran (another data folder's node may share the port: an npx copy beside a clone)
  const dir = nodes.map((n) => existingServiceDir(host, n.service)).find(Boolean);
  if (ran.length && dir && rabbitBin(host))
    await run(host, rabbitAccount(host), 'epmd', ['-kill'], rabbitEnv(dir, nodes[0]!.ports), '/').catch(() => {});
  return ran;
}
