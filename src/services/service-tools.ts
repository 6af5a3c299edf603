/**
 * `mqlab ctl …` and `mqlab psql …`: the services of this data folder reached with their own tools,
 * for every backend and port offset — what a page's "Try this" types. `ctl` is the node's
 * rabbitmqctl, run as `up` runs it (the node's account, its folder as HOME: its Erlang cookie, its
 * epmd port, its node name), so it reaches mqlab's node and never the machine's own; docker: `docker
 * compose exec rabbitmq rabbitmqctl`. `psql` connects with the run's PostgreSQL URL (MQLAB_PG_URL, or
 * the default with the port offset), its password in the environment (never in argv), the role's own
 * search_path (the set's `app`: lab; a class student's: their schema) so a lab's tables are found by
 * their names; mqlab's own services use the psql of the backend
 * that runs them (the private root's, the machine's, the container's), a database of your own the
 * psql on PATH.
 */
import type { Config } from '../core/config.js';
import { EnvError } from '../core/errors.js';
import { recordedBackend, recordedNodes } from './data-folder.js';
import { command, existingServiceDir, hostOf, type Spawnable } from './host.js';
import { nodesFor, rabbitAccount, rabbitCtl, rabbitEnv } from './rabbitmq-node.js';
import { pointsAt } from './control.js';
import { COMPOSE_ARGS } from './docker.js';
import { pgBinDir } from './postgres-cluster.js';

const CTL_HINT = 'run `mqlab up` first; for a broker of your own, use its own rabbitmqctl';

/** rabbitmqctl with `args` on node 1 of this data folder's services (whatever the MQLAB_* URLs name) */
export function ctlCommand(config: Config, args: readonly string[]): Spawnable {
  const backend = recordedBackend(config.home);
  if (backend !== 'chroot' && backend !== 'system' && backend !== 'docker')
    throw new EnvError(`mqlab ctl: no RabbitMQ node that \`mqlab up\` started in ${config.home}`, CTL_HINT);
  if (backend === 'docker')
    return { file: 'docker', args: [...COMPOSE_ARGS, 'exec', 'rabbitmq', 'rabbitmqctl', ...args], options: env() };
  const host = hostOf(config, backend);
  const node = nodesFor(config.ports, recordedNodes(config.home))[0]!; // at least one
  const dir = existingServiceDir(host, node.service);
  if (!dir) throw new EnvError(`no RabbitMQ node folder in ${config.home}`, CTL_HINT);
  const nodeEnv = rabbitEnv(dir, node.ports, node.name, true, node.dist);
  return command(host, rabbitAccount(host), rabbitCtl(host), [...args], nodeEnv, dir);
}

/** psql with `args`, connected with the run's PostgreSQL URL */
export function psqlCommand(config: Config, args: readonly string[]): Spawnable {
  const url = new URL(config.pgUrl);
  const pg = {
    PGUSER: decodeURIComponent(url.username),
    PGPASSWORD: decodeURIComponent(url.password),
    PGDATABASE: decodeURIComponent(url.pathname.replace(/^\//, '')) || 'lab',
    PGAPPNAME: 'mqlab psql',
    ...(url.searchParams.get('sslmode') ? { PGSSLMODE: url.searchParams.get('sslmode')! } : {}),
  };
  const backend = recordedBackend(config.home);
  const own = backend !== null && pointsAt(config.pgUrl, config.ports.postgres);
  if (own && backend === 'docker')
    // inside the container the server listens on 5432; -e NAME passes the value from this process's environment
    return {
      file: 'docker',
      args: [
        ...COMPOSE_ARGS,
        'exec',
        ...Object.keys(pg).flatMap((k) => ['-e', k]),
        'postgres',
        'psql',
        '-h',
        '127.0.0.1',
        '-p',
        '5432',
        ...args,
      ],
      options: env(pg),
    };
  const at = { PGHOST: url.hostname.replace(/^\[|\]$/g, ''), PGPORT: url.port || '5432' };
  if (own) {
    const host = hostOf(config, backend as 'chroot' | 'system');
    const bin = pgBinDir(host);
    if (bin) return command(host, { name: 'caller' }, `${bin}/psql`, [...args], { ...pg, ...at, HOME: '/tmp' }, '/');
  }
  return { file: 'psql', args: [...args], options: env({ ...pg, ...at }) };
}

/** this process's environment and `extra`, in its folder */
function env(extra: Record<string, string> = {}): Spawnable['options'] {
  return { env: { ...process.env, ...extra }, cwd: process.cwd() };
}
