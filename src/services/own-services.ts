/** mqlab's own RabbitMQ node and PostgreSQL cluster on a Host (this machine's packages, or the private Debian root). */
import path from 'node:path';
import { execa } from 'execa';
import type { Ports } from '../defaults.js';
import { PROJECT_ROOT } from '../config.js';
import { EnvError } from '../errors.js';
import { pgBinDir, provisionPostgres, startPostgres, stopPostgres } from './postgres-cluster.js';
import { rabbitBin, rabbitPid, startRabbit, stopRabbit } from './rabbitmq-node.js';
import { removeOutsideDir, type Host } from './host.js';

/** install the machine's Debian packages when missing (the script prints the command when not root) */
export async function ensureSystemPackages(host: Host, log: (line: string) => void): Promise<void> {
  if (rabbitBin(host) && pgBinDir(host)) return;
  log('RabbitMQ or PostgreSQL binaries are missing: running scripts/install-services.sh');
  const r = await execa('bash', [path.join(PROJECT_ROOT, 'scripts', 'install-services.sh')], { reject: false, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.exitCode !== 0) throw new EnvError('RabbitMQ and PostgreSQL are not installed', 'run the command printed above, or use Docker: mqlab up --backend docker');
}

/** start both services; returns a liveness check for the wait that follows */
export async function ownStart(host: Host, ports: Ports, log: (line: string) => void): Promise<() => string | null> {
  const [rabbit, pg] = await Promise.all([startRabbit(host, ports), startPostgres(host, ports, log)]);
  log(`RabbitMQ node ${rabbit.state === 'running' ? 'already running' : 'starting'} (logs: ${path.relative(process.cwd(), rabbit.log) || rabbit.log})`);
  log(`PostgreSQL cluster ${pg === 'running' ? 'already running' : 'started'}`);
  await provisionPostgres(ports);
  return rabbit.failure;
}

export async function ownStop(host: Host, ports: Ports, log: (line: string) => void): Promise<void> {
  const [rabbit, pg] = await Promise.all([stopRabbit(host, ports), stopPostgres(host)]);
  log(rabbit ? 'RabbitMQ node stopped' : 'RabbitMQ node was not running');
  log(pg ? 'PostgreSQL cluster stopped' : 'PostgreSQL cluster was not running');
}

/** the folders outside HOME that the system backend may have made (see serviceDir) */
export function removeOutsideDirs(host: Host): void {
  for (const s of ['rabbitmq', 'postgres']) removeOutsideDir(host, s);
}

export const ownRunning = (host: Host) => rabbitPid(host) !== null;
