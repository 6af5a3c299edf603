/** The docker backend: compose.yaml (RabbitMQ 4.3.x with management, PostgreSQL 18.x). */
import path from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../core/config.js';
import { EnvError } from '../core/errors.js';

const COMPOSE_FILE = path.join(PROJECT_ROOT, 'compose.yaml');
// one project name wherever mqlab runs from (a clone, npx's cache), so `logs`/`down` find it
export const COMPOSE_ARGS = ['compose', '-p', 'mqlab', '-f', COMPOSE_FILE] as const;
const compose = (args: string[]) => [...COMPOSE_ARGS, ...args];
/** the command that shows the services' logs, from any folder */
export const LOGS_HINT = `docker compose -p mqlab -f ${COMPOSE_FILE} logs`;

/** `up --wait-timeout` exists from Compose 2.17 */
const MIN_COMPOSE = [2, 17] as const;

interface DockerFacts {
  /** `docker info` answered with a server version (the engine, not just the client) */
  engine: string | null;
  /** the output of `docker compose version`, or null when it failed */
  compose: string | null;
}

/** docker or not, and the one line that says why */
export function dockerDecision({ engine, compose }: DockerFacts): { use: boolean; why: string } {
  if (!engine) return { use: false, why: 'no Docker engine answers' };
  if (compose === null)
    return {
      use: false,
      why: `Docker ${engine} answers but the compose plugin is missing (\`docker compose version\` failed)`,
    };
  const m = /v?(\d+)\.(\d+)\.(\d+)/.exec(compose);
  if (!m) return { use: false, why: `cannot read the Compose version from '${compose.trim().slice(0, 80)}'` };
  const [major, minor] = [Number(m[1]), Number(m[2])];
  const version = `${m[1]}.${m[2]}.${m[3]}`;
  if (major < MIN_COMPOSE[0] || (major === MIN_COMPOSE[0] && minor < MIN_COMPOSE[1])) {
    return {
      use: false,
      why: `Docker Compose ${version} is older than ${MIN_COMPOSE.join('.')} (needed for --wait-timeout)`,
    };
  }
  return { use: true, why: `Docker ${engine} with Compose ${version} answers` };
}

async function dockerFacts(): Promise<DockerFacts> {
  const run = (args: string[]) => execa('docker', args, { reject: false, timeout: 4000 }).catch(() => null);
  const info = await run(['info', '--format', '{{.ServerVersion}}']);
  const engine = info && info.exitCode === 0 && info.stdout.trim() ? info.stdout.trim() : null;
  if (!engine) return { engine, compose: null };
  const c = await run(['compose', 'version']);
  return { engine, compose: c && c.exitCode === 0 ? c.stdout : null };
}

export const dockerAvailability = async () => dockerDecision(await dockerFacts());

/** true when a Docker engine answers and its Compose plugin is new enough */
async function dockerAvailable(): Promise<boolean> {
  return (await dockerAvailability()).use;
}

export async function dockerUp(log: (line: string) => void): Promise<void> {
  const d = await dockerAvailability();
  if (!d.use)
    throw new EnvError(
      `cannot use Docker: ${d.why}`,
      'start Docker (with Compose ≥ 2.17), or use the local backend: mqlab up --backend local',
    );
  log('starting RabbitMQ and PostgreSQL with docker compose (compose.yaml)');
  const r = await execa('docker', compose(['up', '-d', '--wait', '--wait-timeout', '180']), {
    reject: false,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.exitCode !== 0)
    throw new EnvError('docker compose up failed', `see its output above; \`${LOGS_HINT}\` has the services’ logs`);
}

export async function dockerDown(volumes: boolean, log: (line: string) => void): Promise<void> {
  const d = await dockerAvailability();
  if (!d.use) throw new EnvError(`cannot use Docker: ${d.why}`, 'for the local backend: mqlab down --backend local');
  if (volumes) log('deleting the compose volumes mqlab_rabbitmq-data and mqlab_postgres-data (all queues and tables)');
  const r = await execa('docker', compose(['down', ...(volumes ? ['--volumes'] : [])]), {
    reject: false,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.exitCode !== 0) throw new EnvError('docker compose down failed');
}

/**
 * From `docker compose ls --format json`: project `mqlab` runs AND was started from this compose file.
 * A project started from another copy of mqlab (a clone, another npx cache) is not this one's to stop.
 */
export function ownProjectRunning(lsJson: string, composeFile = COMPOSE_FILE): boolean {
  let projects: { Name?: string; Status?: string; ConfigFiles?: string }[];
  try {
    projects = JSON.parse(lsJson) as typeof projects;
  } catch {
    return false;
  }
  return projects.some(
    (p) =>
      p.Name === 'mqlab' && /running/.test(p.Status ?? '') && (p.ConfigFiles ?? '').split(',').includes(composeFile),
  );
}

/** the services this copy of mqlab started with docker compose are running */
export async function dockerRunning(): Promise<boolean> {
  if (!(await dockerAvailable())) return false;
  const r = await execa('docker', ['compose', 'ls', '--format', 'json'], { reject: false });
  return r.exitCode === 0 && ownProjectRunning(r.stdout);
}
