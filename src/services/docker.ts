/** The docker backend: compose.yaml (RabbitMQ 4.3.x with management, PostgreSQL 18.x). */
import path from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../config.js';
import { EnvError } from '../errors.js';

const compose = (args: string[]) => ['compose', '-f', path.join(PROJECT_ROOT, 'compose.yaml'), ...args];

/** true when a Docker engine answers (not just the client) */
export async function dockerAvailable(): Promise<boolean> {
  const r = await execa('docker', ['info', '--format', '{{.ServerVersion}}'], { reject: false, timeout: 4000 }).catch(() => null);
  return Boolean(r && r.exitCode === 0 && r.stdout.trim());
}

export async function dockerUp(log: (line: string) => void): Promise<void> {
  if (!(await dockerAvailable())) throw new EnvError('no Docker engine answers here', 'start Docker, or use the local backend: mqlab up --backend local');
  log('starting RabbitMQ and PostgreSQL with docker compose (compose.yaml)');
  const r = await execa('docker', compose(['up', '-d', '--wait', '--wait-timeout', '180']), { reject: false, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.exitCode !== 0) throw new EnvError('docker compose up failed', 'see its output above; `docker compose logs` has the services’ logs');
}

export async function dockerDown(volumes: boolean, log: (line: string) => void): Promise<void> {
  if (!(await dockerAvailable())) throw new EnvError('no Docker engine answers here', 'for the local backend: mqlab down --backend local');
  if (volumes) log('deleting the compose volumes mqlab_rabbitmq-data and mqlab_postgres-data (all queues and tables)');
  const r = await execa('docker', compose(['down', ...(volumes ? ['--volumes'] : [])]), { reject: false, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.exitCode !== 0) throw new EnvError('docker compose down failed');
}

export async function dockerRunning(): Promise<boolean> {
  if (!(await dockerAvailable())) return false;
  const r = await execa('docker', compose(['ps', '-q']), { reject: false });
  return r.exitCode === 0 && r.stdout.trim() !== '';
}
