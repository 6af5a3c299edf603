/** The local backend: a private RabbitMQ node and PostgreSQL cluster under .mqlab/. */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../config.js';
import { EnvError } from '../errors.js';
import { pgBinDir, provisionPostgres, removePostgres, startPostgres, stopPostgres } from './local-postgres.js';
import { rabbitBin, rabbitLog, rabbitPid, startRabbit, stopRabbit } from './local-rabbitmq.js';

/** install the Debian packages when missing (the script prints the command when not root) */
export async function ensureBinaries(log: (line: string) => void): Promise<void> {
  if (rabbitBin() && pgBinDir()) return;
  log('RabbitMQ or PostgreSQL binaries are missing: running scripts/install-services.sh');
  const r = await execa('bash', [path.join(PROJECT_ROOT, 'scripts', 'install-services.sh')], { reject: false, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.exitCode !== 0) throw new EnvError('RabbitMQ and PostgreSQL are not installed', 'run the command printed above, or use Docker: mqlab up --backend docker');
}

/** start both services; returns a liveness check for the wait that follows */
export async function localStart(home: string, log: (line: string) => void): Promise<() => string | null> {
  await ensureBinaries(log);
  fs.mkdirSync(home, { recursive: true });
  const [rabbit, pg] = await Promise.all([Promise.resolve().then(() => startRabbit(home)), startPostgres(home, log)]);
  log(`RabbitMQ node ${rabbit.state === 'running' ? 'already running' : 'starting'} (logs: ${path.relative(process.cwd(), rabbitLog(home)) || rabbitLog(home)})`);
  log(`PostgreSQL cluster ${pg === 'running' ? 'already running' : 'started'}`);
  await provisionPostgres();
  return rabbit.failure;
}

export async function localStop(home: string, volumes: boolean, log: (line: string) => void): Promise<void> {
  const [rabbit, pg] = await Promise.all([stopRabbit(home), stopPostgres(home)]);
  log(rabbit ? 'RabbitMQ node stopped' : 'RabbitMQ node was not running');
  log(pg ? 'PostgreSQL cluster stopped' : 'PostgreSQL cluster was not running');
  if (volumes) {
    removePostgres(home);
    fs.rmSync(home, { recursive: true, force: true });
    log('data deleted');
  }
}

export const localRunning = (home: string) => rabbitPid(home) !== null;
