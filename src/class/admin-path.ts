/**
 * The administrative path of a set of mqlab's own services, as class mode needs it: the RabbitMQ
 * node's own CLI (run as the node's account, authenticated by its Erlang cookie) and PostgreSQL's
 * superuser. Interim: src/services/admin.ts (issue 47 D1/D6) brings nodeCli and postgresAdmin with
 * these signatures; once it lands this file re-exports them.
 */
import path from 'node:path';
import crypto from 'node:crypto';
import { execa } from 'execa';
import postgres from 'postgres';
import type { Config } from '../core/config.js';
import { ACCOUNTS } from '../core/defaults.js';
import { EnvError } from '../core/errors.js';
import { recordedBackend, recordedNodes } from '../services/data-folder.js';
import { command, existingServiceDir, hostOf } from '../services/host.js';
import { nodesFor, rabbitAccount, rabbitBin, rabbitEnv } from '../services/rabbitmq-node.js';

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

type SetConfig = Pick<Config, 'home' | 'ports'>;

const ownBackend = (config: Pick<Config, 'home'>): 'chroot' | 'system' => {
  const backend = recordedBackend(config.home);
  if (backend === 'chroot' || backend === 'system') return backend;
  throw new EnvError(
    `no RabbitMQ node or PostgreSQL cluster of mqlab's own in ${config.home} (backend: ${backend ?? 'none'})`,
    'run `mqlab up` (chroot or system backend) first, as the teacher',
  );
};

/** `rabbitmqctl args…` against node 1 of the set; a password or a document goes on stdin (`input`) */
export async function nodeCli(
  config: SetConfig,
  tool: 'rabbitmqctl',
  args: string[],
  o: { input?: string; timeoutS?: number } = {},
): Promise<CliResult> {
  const host = hostOf(config, ownBackend(config));
  const node = nodesFor(config.ports, recordedNodes(config.home))[0]!; // at least one
  const dir = existingServiceDir(host, node.service);
  const bin = rabbitBin(host);
  if (!dir || !bin) throw new EnvError(`RabbitMQ node ${node.name} has no folder in ${config.home}`, 'run `mqlab up`');
  // with a document on stdin, no option at all: 4.3.6's CLI (OTP 29) given any option (-n, --timeout)
  // fails to read stdin (`prim_tty.read` FunctionClauseError, exit 70); 3.10.8's reads it either way.
  // RABBITMQ_NODENAME (rabbitEnv) names the node.
  const options = o.input === undefined ? ['-n', node.name, '--timeout', String(o.timeoutS ?? 60)] : [];
  const c = command(
    host,
    rabbitAccount(host),
    path.join(path.dirname(bin), tool),
    [...args, ...options],
    rabbitEnv(dir, node.ports, node.name, true, node.dist),
    '/',
  );
  const r = await execa(c.file, c.args, {
    ...c.options,
    reject: false,
    extendEnv: false,
    timeout: 120_000,
    ...(o.input !== undefined ? { input: o.input } : {}),
  });
  return { exitCode: r.exitCode ?? 1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** the superuser's connection to database `db` of the set's PostgreSQL; end it after use */
export function postgresAdmin(config: SetConfig, db = 'postgres'): postgres.Sql {
  ownBackend(config);
  return postgres({
    host: '127.0.0.1',
    port: config.ports.postgres,
    user: ACCOUNTS.pgSuperuser.user,
    password: ACCOUNTS.pgSuperuser.password,
    database: db,
    onnotice: () => {},
    max: 1,
  });
}

/** RabbitMQ's stored form of a password (rabbit_password_hashing_sha256): base64(salt ++ sha256(salt ++ password)) */
export function passwordHash(password: string, salt: Buffer = crypto.randomBytes(4)): string {
  const hash = crypto
    .createHash('sha256')
    .update(Buffer.concat([salt, Buffer.from(password, 'utf8')]))
    .digest();
  return Buffer.concat([salt, hash]).toString('base64');
}
