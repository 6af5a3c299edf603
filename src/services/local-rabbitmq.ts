/**
 * A private RabbitMQ node under .mqlab/rabbitmq, from the binaries of Debian's rabbitmq-server
 * package: own node name, ports, epmd, data, logs and config (the same definitions and
 * advanced.config as compose.yaml).
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { execa } from 'execa';
import { PORTS } from '../defaults.js';
import { PROJECT_ROOT } from '../config.js';
import { EnvError } from '../errors.js';
import { pidAlive, waitGone } from './process.js';

const NODE = 'mqlab@localhost';

export function rabbitBin(): string | null {
  for (const p of ['/usr/lib/rabbitmq/bin/rabbitmq-server', '/usr/sbin/rabbitmq-server'])
    if (fs.existsSync(p)) return p;
  return null;
}

function paths(home: string) {
  const dir = path.join(home, 'rabbitmq');
  return { dir, data: path.join(dir, 'data'), log: path.join(dir, 'log'), conf: path.join(dir, 'rabbitmq.conf'), pid: path.join(dir, 'rabbitmq.pid') };
}

export function rabbitEnv(home: string): NodeJS.ProcessEnv {
  const p = paths(home);
  const config = path.join(PROJECT_ROOT, 'config', 'rabbitmq');
  return {
    ...process.env,
    HOME: p.dir, // the Erlang cookie lives here, not in the user's home
    RABBITMQ_NODENAME: NODE,
    RABBITMQ_CONF_ENV_FILE: '/dev/null', // ignore /etc/rabbitmq/rabbitmq-env.conf of a system install
    RABBITMQ_CONFIG_FILE: p.conf,
    RABBITMQ_ADVANCED_CONFIG_FILE: path.join(config, 'advanced.config'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(config, 'enabled_plugins'),
    RABBITMQ_MNESIA_BASE: p.data,
    RABBITMQ_LOG_BASE: p.log,
    RABBITMQ_PID_FILE: p.pid,
    RABBITMQ_DIST_PORT: String(PORTS.erlangDist),
    ERL_EPMD_PORT: String(PORTS.epmd),
    ERL_EPMD_ADDRESS: '127.0.0.1',
  };
}

function confText(): string {
  const defs = path.join(PROJECT_ROOT, 'config', 'rabbitmq', 'definitions.json');
  return [
    '# written by `mqlab up` (local backend); edit src/services/local-rabbitmq.ts instead',
    `listeners.tcp.default = 127.0.0.1:${PORTS.amqp}`,
    `management.tcp.ip = 127.0.0.1`,
    `management.tcp.port = ${PORTS.management}`,
    `load_definitions = ${defs}`,
    '',
  ].join('\n');
}

export function rabbitPid(home: string): number | null {
  try {
    const pid = Number(fs.readFileSync(paths(home).pid, 'utf8').trim());
    return pid > 0 && pidAlive(pid) ? pid : null;
  } catch {
    return null;
  }
}

export interface Started {
  state: 'started' | 'running';
  /** null while the node lives; once it has exited, why (the last lines of its console log) */
  failure(): string | null;
}

/** start the node in the background unless it runs already; readiness is checked by the caller */
export function startRabbit(home: string): Started {
  const bin = rabbitBin();
  if (!bin) throw new EnvError('rabbitmq-server is not installed', 'run `bash scripts/install-services.sh` (as root), or use Docker: mqlab up --backend docker');
  if (rabbitPid(home)) return { state: 'running', failure: () => null };
  const p = paths(home);
  for (const d of [p.data, p.log]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(p.conf, confText());
  const consoleLog = path.join(p.log, 'console.log');
  fs.rmSync(path.join(p.dir, 'erl_crash.dump'), { force: true });
  const out = fs.openSync(consoleLog, 'w');
  const child = spawn(bin, [], { env: rabbitEnv(home), cwd: p.dir, detached: true, stdio: ['ignore', out, out] });
  let exited: string | null = null;
  child.on('exit', (code, sig) => {
    const tail = fs.readFileSync(consoleLog, 'utf8').trim().split('\n').filter((l) => !/crash dump|^$/i.test(l)).pop() ?? '';
    exited = `the RabbitMQ node exited (${sig ?? `code ${code}`}) during startup: ${tail.slice(0, 300)}`;
  });
  child.unref();
  fs.closeSync(out);
  return { state: 'started', failure: () => exited };
}

export async function stopRabbit(home: string): Promise<boolean> {
  const pid = rabbitPid(home);
  if (pid) {
    process.kill(pid, 'SIGTERM'); // the Erlang VM shuts the node down cleanly on SIGTERM
    if (!(await waitGone(pid, 60_000))) process.kill(pid, 'SIGKILL');
  }
  // the node started its own epmd on a private port; stop it too — only when this data folder's
  // node was running: a node started from another folder (the epmd port is shared) is not ours
  if (pid) await execa('epmd', ['-kill'], { env: rabbitEnv(home), reject: false, timeout: 5000 }).catch(() => {});
  return pid !== null;
}

export const rabbitLog = (home: string) => path.join(paths(home).log, `${NODE}.log`);
