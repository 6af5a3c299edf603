/**
 * Administration of one set of mqlab's own services (the data folder's chroot or system backend),
 * for code that must do what the lab accounts may not: make or remove accounts, close connections.
 * - RabbitMQ: the node's own CLI (rabbitmqctl, rabbitmq-queues, rabbitmq-diagnostics), run as the
 *   node's account and authenticated by the node's Erlang cookie (0400, in the node's folder): no
 *   account of the broker has the administrator tag (the management account is policymaker,monitoring).
 * - PostgreSQL: the superuser, with the data folder's random secret (secrets.json, 0600).
 * Both refuse a data folder whose services mqlab did not start (Docker's, or none).
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type postgres from 'postgres';
import type { Config } from '../core/config.js';
import { EnvError } from '../core/errors.js';
import { recordedBackend, recordedNodes } from './data-folder.js';
import { chownTo, existingServiceDir, hostOf, outer, run } from './host.js';
import { nodesFor, passwordHash, rabbitAccount, rabbitBin, rabbitEnv } from './rabbitmq-node.js';
import { superuserSql } from './postgres-cluster.js';

export { passwordHash };

export type NodeTool = 'rabbitmqctl' | 'rabbitmq-queues' | 'rabbitmq-diagnostics';

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const ownBackend = (config: Pick<Config, 'home'>): 'chroot' | 'system' => {
  const backend = recordedBackend(config.home);
  if (backend === 'chroot' || backend === 'system') return backend;
  throw new EnvError(
    `no RabbitMQ node or PostgreSQL cluster of mqlab's own in ${config.home} (backend: ${backend ?? 'none'})`,
    'run `mqlab up` (chroot or system backend) first',
  );
};

/**
 * `tool args…` against node 1 of the set (its single node, or node 1 of a cluster), e.g.
 * `nodeCli(config, 'rabbitmqctl', ['list_users', '--formatter', 'json'])`. `input`: a document the
 * command reads from a file (import_definitions): written 0600 for the node's account in its folder,
 * its path added as the last argument, removed after — not on stdin, which rabbitmqctl 4.0.5 given
 * any option never reads to its end (the call hung). Never put a password in the arguments (any
 * local user sees them): putBrokerUser hands it over as a hash. Resolves with the exit code and
 * output; never throws for a non-zero exit.
 */
export async function nodeCli(
  config: Pick<Config, 'home' | 'ports'>,
  tool: NodeTool,
  args: string[],
  o: { input?: string; timeoutS?: number } = {},
): Promise<CliResult> {
  const { host, node, dir, bin } = nodeOf(config);
  const timeout = ['--timeout', String(o.timeoutS ?? 60)];
  const inner =
    o.input === undefined ? null : path.join(dir, `input-${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
  const file = inner && outer(host, inner);
  try {
    if (file) {
      fs.writeFileSync(file, o.input ?? '', { mode: 0o600 });
      chownTo(file, rabbitAccount(host));
    }
    const r = await run(
      host,
      rabbitAccount(host),
      path.join(path.dirname(bin), tool),
      ['-n', node.name, ...timeout, ...args, ...(inner ? [inner] : [])],
      rabbitEnv(dir, node.ports, node.name, true, node.dist),
      '/',
    );
    return { exitCode: r.exitCode ?? 1, stdout: String(r.stdout), stderr: String(r.stderr) };
  } finally {
    if (file) fs.rmSync(file, { force: true });
  }
}

/** node 1 of the set: its host, spec, folder (inner path) and the package's server script */
function nodeOf(config: Pick<Config, 'home' | 'ports'>) {
  const host = hostOf(config, ownBackend(config));
  const node = nodesFor(config.ports, recordedNodes(config.home))[0]!;
  const dir = existingServiceDir(host, node.service);
  const bin = rabbitBin(host);
  if (!dir || !bin) throw new EnvError(`RabbitMQ node ${node.name} has no folder in ${config.home}`, 'run `mqlab up`');
  return { host, node, dir, bin };
}

/**
 * import definitions (users with password hashes, permissions, vhosts …) into the set's broker through
 * the node's CLI; synchronous (the CLI's "asynchronous" notice notwithstanding: rabbit_definitions
 * apply_defs runs in the call)
 */
export async function importDefinitions(config: Pick<Config, 'home' | 'ports'>, defs: object): Promise<void> {
  await mustNodeCli(config, 'rabbitmqctl', ['import_definitions'], { input: JSON.stringify(defs) });
}

/** nodeCli that throws an EnvError with the tool's last line when it fails */
export async function mustNodeCli(
  config: Pick<Config, 'home' | 'ports'>,
  tool: NodeTool,
  args: string[],
  o: { input?: string; timeoutS?: number } = {},
): Promise<string> {
  const r = await nodeCli(config, tool, args, o);
  if (r.exitCode !== 0)
    throw new EnvError(
      `${tool} ${args[0] ?? ''} failed (exit ${r.exitCode}): ${(r.stderr || r.stdout).trim().split('\n').pop()?.slice(0, 300)}`,
    );
  return r.stdout;
}

/** the superuser's connection to database `db` of the set's PostgreSQL (the data folder's secret); end it after use */
export function postgresAdmin(config: Pick<Config, 'home' | 'ports'>, db = 'postgres'): postgres.Sql {
  ownBackend(config);
  return superuserSql(config.home, config.ports, db);
}

export interface BrokerUser {
  user: string;
  password: string;
  /** management tags: [] for an AMQP-only account, ['monitoring'], ['policymaker', 'monitoring'] … */
  tags: string[];
  /** permissions on `vhost` (default: the config's), or none */
  permissions?: { configure: string; write: string; read: string; vhost?: string };
}

/**
 * Create or update a broker account through the node's CLI (importDefinitions: one call, the password
 * only as its hash): idempotent, and it leaves every other account as it is.
 */
export async function putBrokerUser(config: Pick<Config, 'home' | 'ports' | 'vhost'>, u: BrokerUser): Promise<void> {
  const defs = {
    users: [
      {
        name: u.user,
        password_hash: passwordHash(u.password),
        hashing_algorithm: 'rabbit_password_hashing_sha256',
        tags: u.tags,
      },
    ],
    permissions: u.permissions
      ? [
          {
            user: u.user,
            vhost: u.permissions.vhost ?? config.vhost,
            configure: u.permissions.configure,
            write: u.permissions.write,
            read: u.permissions.read,
          },
        ]
      : [],
  };
  await importDefinitions(config, defs);
}

/** delete a broker account (a no-op when there is none) */
export async function deleteBrokerUser(config: Pick<Config, 'home' | 'ports'>, user: string): Promise<void> {
  const r = await nodeCli(config, 'rabbitmqctl', ['delete_user', user]);
  if (r.exitCode !== 0 && !/no_such_user|does not exist/.test(r.stderr + r.stdout))
    throw new EnvError(`rabbitmqctl delete_user ${user} failed: ${(r.stderr || r.stdout).trim().split('\n').pop()}`);
}

/** the broker's accounts and their tags (rabbitmqctl list_users) */
export async function brokerUsers(config: Pick<Config, 'home' | 'ports'>): Promise<{ user: string; tags: string[] }[]> {
  const out = await mustNodeCli(config, 'rabbitmqctl', ['list_users', '--formatter', 'json']);
  const rows = JSON.parse(out.slice(Math.max(0, out.indexOf('[')))) as { user: string; tags: string[] | string }[];
  return rows.map((r) => ({
    user: r.user,
    tags: (Array.isArray(r.tags) ? r.tags : r.tags.replace(/^\[|\]$/g, '').split(','))
      .map((t) => t.trim())
      .filter(Boolean),
  }));
}

/** close the client connections with these names (as the management API lists them), saying `reason` to each */
export async function closeConnections(
  config: Pick<Config, 'home' | 'ports'>,
  names: readonly string[],
  reason: string,
): Promise<number> {
  // the text form: its pid is one close_connection takes (the JSON form writes Pid(#PID<…>))
  const out = await mustNodeCli(config, 'rabbitmqctl', ['list_connections', 'pid', 'name', '-q', '--no-table-headers']);
  const rows = out
    .split('\n')
    .map((l) => /^(<[^>]+>)\t(.*)$/.exec(l.trim()))
    .flatMap((m) => (m?.[1] && m[2] !== undefined ? [{ pid: m[1], name: m[2] }] : []));
  let closed = 0;
  for (const row of rows.filter((r) => names.includes(r.name))) {
    const r = await nodeCli(config, 'rabbitmqctl', ['close_connection', row.pid, reason]);
    if (r.exitCode === 0) closed++;
  }
  return closed;
}
