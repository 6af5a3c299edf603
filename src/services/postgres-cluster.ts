/**
 * mqlab's own PostgreSQL cluster, from the postgresql package of a Host (this machine's, or the
 * private Debian root's), on its own port, TCP on 127.0.0.1 only. PostgreSQL refuses to run as
 * root, so as root the cluster belongs to the unprivileged `postgres` user (or `nobody`).
 */
import fs from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { ACCOUNTS, type Ports } from '../core/defaults.js';
import { PROJECT_ROOT } from '../core/config.js';
import { EnvError } from '../core/errors.js';
import { account, chownTo, existingServiceDir, outer, run, serviceDir, type Account, type Host } from './host.js';
import { ensureSecrets, mustReadSecrets } from '../core/account-secrets.js';

/** the newest /usr/lib/postgresql/<major>/bin of the host (inner path) */
export function pgBinDir(host: Host): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(outer(host, root))) return null;
  const versions = fs
    .readdirSync(outer(host, root))
    .filter((v) => fs.existsSync(outer(host, path.join(root, v, 'bin', 'postgres'))))
    .sort((a, b) => Number(b) - Number(a));
  const newest = versions[0];
  return newest === undefined ? null : path.join(root, newest, 'bin');
}

const pgAccount = (host: Host) => account(host, ['postgres', 'nobody']);

const conf = (ports: Ports) => `
# --- mqlab ---
listen_addresses = '127.0.0.1'
port = ${ports.postgres}
unix_socket_directories = ''
max_connections = 50
`;

export async function startPostgres(
  host: Host,
  ports: Ports,
  log: (line: string) => void,
): Promise<'started' | 'running'> {
  const bin = pgBinDir(host);
  if (!bin)
    throw new EnvError(
      'postgresql is not installed',
      'run `bash scripts/install-services.sh` (as root), or use Docker: mqlab up --backend docker',
    );
  const who = pgAccount(host);
  const dir = await serviceDir(host, 'postgres', who);
  const data = path.join(dir, 'data');
  const pg = (tool: string, args: string[]) => run(host, who, path.join(bin, tool), args, { HOME: dir }, dir);
  if (!fs.existsSync(outer(host, path.join(data, 'PG_VERSION')))) await createCluster(host, who, dir, data, pg, log);
  // the port follows MQLAB_PORT_OFFSET: rewrite mqlab's block on every start
  const confFile = outer(host, path.join(data, 'postgresql.conf'));
  fs.writeFileSync(confFile, fs.readFileSync(confFile, 'utf8').replace(/\n# --- mqlab[^]*$/, '') + conf(ports));
  const status = await pg('pg_ctl', ['-D', data, 'status']);
  if (status.exitCode === 0) return 'running';
  const logFile = path.join(dir, 'postgres.log');
  const text = outer(host, logFile);
  // only what this start writes: an earlier failure's FATAL line is not this one's cause
  const before = fs.existsSync(text) ? fs.statSync(text).size : 0;
  const r = await pg('pg_ctl', ['-D', data, '-l', logFile, '-w', '-t', '60', 'start']);
  if (r.exitCode !== 0) {
    const fatal = fs.existsSync(text)
      ? fs
          .readFileSync(text)
          .subarray(before)
          .toString('utf8')
          .split('\n')
          .filter((l) => /FATAL|could not/.test(l))
          .pop()
      : undefined;
    const inUse = /Address already in use|could not bind/.test(fatal ?? '');
    throw new EnvError(
      `PostgreSQL did not start: ${inUse ? `port ${ports.postgres} is in use by another program` : (fatal?.trim() ?? lastLine(r.stderr || r.stdout))}`,
      inUse
        ? `stop whatever listens on 127.0.0.1:${ports.postgres} (another mqlab checkout? run \`mqlab down\` there, or set MQLAB_PORT_OFFSET)`
        : `see ${text}`,
    );
  }
  return 'started';
}

/**
 * initdb into `data.tmp-<pid>`, renamed to `data` once complete: an `up` killed while the cluster is being
 * made leaves no half-made `data` that every later `up` would take for a cluster (security review D7).
 * The superuser's password is the data folder's secret (account-secrets.ts), handed over in a 0600
 * file that is removed whatever happens.
 */
async function createCluster(
  host: Host,
  who: Account,
  dir: string,
  data: string,
  pg: (tool: string, args: string[]) => ReturnType<typeof run>,
  log: (line: string) => void,
): Promise<void> {
  // a folder of this up's own: a killed up's initdb runs on in its process group for a few seconds
  const tmp = `${data}.tmp-${process.pid}`;
  log(`creating a PostgreSQL cluster in ${outer(host, data)} (runs as ${who.name})`);
  removeLeftovers(outer(host, dir));
  const pwfile = path.join(dir, 'superuser.pw');
  fs.writeFileSync(outer(host, pwfile), ensureSecrets(host.home).postgres + '\n', { mode: 0o600 });
  let init;
  try {
    chownTo(outer(host, pwfile), who);
    init = await pg('initdb', [
      '-D',
      tmp,
      '-U',
      ACCOUNTS.pgSuperuser.user,
      `--pwfile=${pwfile}`,
      '--auth=scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
  } finally {
    fs.rmSync(outer(host, pwfile), { force: true });
  }
  if (init.exitCode !== 0) {
    fs.rmSync(outer(host, tmp), { recursive: true, force: true });
    throw new EnvError(
      `could not create the PostgreSQL cluster: ${lastLine(init.stderr || init.stdout)}`,
      `check that user ${who.name} can write ${outer(host, dir)}`,
    );
  }
  // a `data` without PG_VERSION is no cluster (an older mqlab's initdb killed before it wrote one)
  fs.rmSync(outer(host, data), { recursive: true, force: true });
  fs.renameSync(outer(host, tmp), outer(host, data));
}

/** the temporary clusters killed `up`s left (their initdb may still write: what cannot go now goes next time) */
function removeLeftovers(dir: string): void {
  for (const e of fs.readdirSync(dir).filter((n) => /^data\.tmp/.test(n)))
    try {
      fs.rmSync(path.join(dir, e), { recursive: true, force: true });
    } catch {
      /* still being written */
    }
}

export async function stopPostgres(host: Host): Promise<boolean> {
  const bin = pgBinDir(host);
  const dir = existingServiceDir(host, 'postgres');
  if (!bin || !dir || !fs.existsSync(outer(host, path.join(dir, 'data', 'PG_VERSION')))) return false;
  const r = await run(
    host,
    pgAccount(host),
    path.join(bin, 'pg_ctl'),
    ['-D', path.join(dir, 'data'), '-m', 'fast', '-w', 'stop'],
    { HOME: dir },
    dir,
  );
  return r.exitCode === 0;
}

/**
 * The superuser's connection to database `db` of the cluster on `ports`, with the data folder's secret
 * (the administrative path for other code: provisioning, per-student roles). The caller ends it.
 */
export function superuserSql(home: string, ports: Ports, db = 'postgres', password?: string): postgres.Sql {
  return postgres({
    host: '127.0.0.1',
    port: ports.postgres,
    user: ACCOUNTS.pgSuperuser.user,
    password: password ?? mustReadSecrets(home).postgres,
    database: db,
    onnotice: () => {},
    max: 1,
  });
}

const AUTH_FAILED = '28P01';

/**
 * A cluster made before the secrets (its superuser had the fixed ACCOUNTS.pgSuperuser password, which
 * every local user could read in the source): log in with that once more and set the data folder's secret.
 */
async function rotateLegacySuperuser(home: string, ports: Ports, log: (line: string) => void): Promise<void> {
  const probe = superuserSql(home, ports);
  try {
    await probe`select 1`;
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== AUTH_FAILED) throw err;
  } finally {
    await probe.end({ timeout: 1 });
  }
  const legacy = superuserSql(home, ports, 'postgres', ACCOUNTS.pgSuperuser.password);
  try {
    await legacy`select 1`.catch((err: { code?: string }) => {
      if (err.code !== AUTH_FAILED) throw err;
      throw new EnvError(
        `PostgreSQL's superuser refuses the secret of ${home} (secrets.json was replaced or removed?)`,
        '`mqlab down --volumes` deletes the data folder; the next `mqlab up` makes it anew',
      );
    });
    await legacy.unsafe(`ALTER ROLE ${ACCOUNTS.pgSuperuser.user} PASSWORD '${ensureSecrets(home).postgres}'`);
    log("PostgreSQL's superuser no longer has the fixed password: it has this data folder's secret (secrets.json)");
  } finally {
    await legacy.end({ timeout: 1 });
  }
}

/** database `lab`, role `app`, schema `lab` owned by app: config/postgres/init.sql, as docker runs it */
export async function provisionPostgres(home: string, ports: Ports, log: (line: string) => void): Promise<void> {
  await rotateLegacySuperuser(home, ports, log);
  const root = superuserSql(home, ports);
  try {
    const [exists] = await root`select 1 from pg_database where datname = ${ACCOUNTS.database}`;
    if (!exists) await root.unsafe(`CREATE DATABASE ${ACCOUNTS.database}`);
  } finally {
    await root.end({ timeout: 1 });
  }
  const lab = superuserSql(home, ports, ACCOUNTS.database);
  try {
    await lab.unsafe(fs.readFileSync(path.join(PROJECT_ROOT, 'config', 'postgres', 'init.sql'), 'utf8'));
  } finally {
    await lab.end({ timeout: 1 });
  }
}

const lastLine = (text: string) => text.trim().split('\n').filter(Boolean).pop() ?? '(no output)';
