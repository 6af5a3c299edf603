/**
 * mqlab's own RabbitMQ node, from the rabbitmq-server package of a Host (this machine's, or the
 * private Debian root's): own node name, ports, epmd, data, logs and config (the same definitions
 * and advanced.config as compose.yaml). As root it runs as the package's `rabbitmq` account; its
 * Erlang distribution listens on 127.0.0.1 only, with a random cookie (0400) per data folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import type { Ports } from '../defaults.js';
import { PROJECT_ROOT } from '../config.js';
import { EnvError } from '../errors.js';
import { pidAlive, waitGone } from './process.js';
import { account, chownTo, command, existingServiceDir, outer, run, serviceDir, type Account, type Host } from './host.js';

const NODE = 'mqlab@localhost';
const CONFIG_FILES = ['advanced.config', 'enabled_plugins', 'definitions.json'];

export function rabbitBin(host: Host): string | null {
  for (const p of ['/usr/lib/rabbitmq/bin/rabbitmq-server', '/usr/sbin/rabbitmq-server']) if (fs.existsSync(outer(host, p))) return p;
  return null;
}

const rabbitAccount = (host: Host) => account(host, ['rabbitmq', 'nobody']);

function paths(dir: string) {
  return { dir, data: path.join(dir, 'data'), log: path.join(dir, 'log'), conf: path.join(dir, 'rabbitmq.conf'), pid: path.join(dir, 'rabbitmq.pid'), cookie: path.join(dir, '.erlang.cookie') };
}

/** the node's environment (inner paths): everything under its own folder, nothing from /etc/rabbitmq */
export function rabbitEnv(dir: string, ports: Ports): Record<string, string> {
  const p = paths(dir);
  const loopbackDist = '-kernel inet_dist_use_interface {127,0,0,1}';
  return {
    HOME: p.dir, // the Erlang cookie lives here, not in the user's home
    RABBITMQ_NODENAME: NODE,
    RABBITMQ_CONF_ENV_FILE: '/dev/null', // ignore /etc/rabbitmq/rabbitmq-env.conf of a system install
    RABBITMQ_CONFIG_FILE: p.conf,
    RABBITMQ_ADVANCED_CONFIG_FILE: path.join(p.dir, 'advanced.config'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(p.dir, 'enabled_plugins'),
    RABBITMQ_MNESIA_BASE: p.data,
    RABBITMQ_LOG_BASE: p.log,
    RABBITMQ_PID_FILE: p.pid,
    RABBITMQ_DIST_PORT: String(ports.erlangDist),
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: loopbackDist,
    RABBITMQ_CTL_ERL_ARGS: loopbackDist,
    ERL_EPMD_PORT: String(ports.epmd),
    ERL_EPMD_ADDRESS: '127.0.0.1',
  };
}

function confText(host: Host, dir: string, ports: Ports): string {
  return [
    '# written by `mqlab up`; edit src/services/rabbitmq-node.ts instead',
    // a root has no /proc: memory use from the Erlang allocators, not /proc/self
    ...(host.root ? ['vm_memory_calculation_strategy = allocated', 'total_memory_available_override_value = 2GB'] : []),
    `listeners.tcp.default = 127.0.0.1:${ports.amqp}`,
    `management.tcp.ip = 127.0.0.1`,
    `management.tcp.port = ${ports.management}`,
    `load_definitions = ${path.join(dir, 'definitions.json')}`,
    '',
  ].join('\n');
}

/** the node's files, owned by its account: config copied from config/rabbitmq, a random cookie once */
function writeFiles(host: Host, dir: string, ports: Ports, who: Account): void {
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
  put(p.conf, confText(host, dir, ports), 0o600);
  for (const f of CONFIG_FILES) put(path.join(dir, f), fs.readFileSync(path.join(PROJECT_ROOT, 'config', 'rabbitmq', f)), 0o600);
  const cookie = outer(host, p.cookie);
  if (!fs.existsSync(cookie)) put(p.cookie, crypto.randomBytes(24).toString('hex').toUpperCase(), 0o400);
  fs.chmodSync(cookie, 0o400);
}

export function rabbitPid(host: Host): number | null {
  const dir = existingServiceDir(host, 'rabbitmq');
  if (!dir) return null;
  try {
    const pid = Number(fs.readFileSync(outer(host, paths(dir).pid), 'utf8').trim());
    return pid > 0 && pidAlive(pid) ? pid : null;
  } catch {
    return null;
  }
}

export interface Started {
  state: 'started' | 'running';
  /** null while the node lives; once it has exited, why (the last lines of its console log) */
  failure(): string | null;
  log: string;
}

/** start the node in the background unless it runs already; readiness is checked by the caller */
export async function startRabbit(host: Host, ports: Ports): Promise<Started> {
  const bin = rabbitBin(host);
  if (!bin) throw new EnvError('rabbitmq-server is not installed', 'run `bash scripts/install-services.sh` (as root), or use Docker: mqlab up --backend docker');
  const who = rabbitAccount(host);
  const dir = await serviceDir(host, 'rabbitmq', who);
  const log = outer(host, path.join(paths(dir).log, `${NODE}.log`));
  if (rabbitPid(host)) return { state: 'running', failure: () => null, log };
  writeFiles(host, dir, ports, who);
  const consoleLog = outer(host, path.join(paths(dir).log, 'console.log'));
  fs.rmSync(outer(host, path.join(dir, 'erl_crash.dump')), { force: true });
  const out = fs.openSync(consoleLog, 'w');
  const c = command(host, who, bin, [], rabbitEnv(dir, ports), dir);
  const child = spawn(c.file, c.args, { ...c.options, detached: true, stdio: ['ignore', out, out] });
  let exited: string | null = null;
  child.on('error', (err) => (exited = `the RabbitMQ node could not be started: ${err.message}`));
  child.on('exit', (code, sig) => {
    const tail = fs.readFileSync(consoleLog, 'utf8').trim().split('\n').filter((l) => !/crash dump|^$/i.test(l)).pop() ?? '';
    exited = `the RabbitMQ node exited (${sig ?? `code ${code}`}) during startup: ${tail.slice(0, 300)}`;
  });
  child.unref();
  fs.closeSync(out);
  return { state: 'started', failure: () => exited, log };
}

export async function stopRabbit(host: Host, ports: Ports): Promise<boolean> {
  const pid = rabbitPid(host);
  if (pid) {
    process.kill(pid, 'SIGTERM'); // the Erlang VM shuts the node down cleanly on SIGTERM
    if (!(await waitGone(pid, 60_000))) process.kill(pid, 'SIGKILL');
  }
  // the node started its own epmd on a private port; stop it too — only when this data folder's
  // node ran (another data folder's node may share the port: an npx copy beside a clone)
  const dir = existingServiceDir(host, 'rabbitmq');
  if (pid && dir && rabbitBin(host)) await run(host, rabbitAccount(host), 'epmd', ['-kill'], rabbitEnv(dir, ports), '/').catch(() => {});
  return pid !== null;
}
