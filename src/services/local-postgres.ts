/**
 * A private PostgreSQL cluster under .mqlab/postgres, from the binaries of Debian's postgresql
 * package, on its own port, TCP on 127.0.0.1 only. PostgreSQL refuses to run as root, so as root
 * the cluster belongs to the unprivileged `postgres` user (or `nobody`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { execa } from 'execa';
import postgres from 'postgres';
import { ACCOUNTS, PORTS } from '../defaults.js';
import { PROJECT_ROOT } from '../config.js';
import { EnvError } from '../errors.js';

export function pgBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  const newest = versions[0];
  return newest === undefined ? null : path.join(root, newest, 'bin');
}

interface RunAs {
  uid?: number;
  gid?: number;
  name: string;
}

/** who runs the cluster: the caller, or an unprivileged account when the caller is root */
function runAs(): RunAs {
  if (process.getuid?.() !== 0) return { name: os.userInfo().username };
  const passwd = fs.readFileSync('/etc/passwd', 'utf8').split('\n');
  for (const name of ['postgres', 'nobody']) {
    const line = passwd.find((l) => l.startsWith(name + ':'));
    if (line) {
      const [, , uid, gid] = line.split(':');
      return { name, uid: Number(uid), gid: Number(gid) };
    }
  }
  throw new EnvError('PostgreSQL refuses to run as root and no unprivileged user (postgres, nobody) exists', 'create one, or run mqlab as a normal user');
}

/**
 * The cluster directory. As root, .mqlab/postgres must be reachable by the unprivileged user;
 * when the project lives somewhere it cannot enter (under /root, say), the data goes to
 * /var/tmp/mqlab-<id>/postgres and .mqlab/postgres links there.
 */
async function clusterDir(home: string, who: RunAs): Promise<string> {
  const dir = path.join(home, 'postgres');
  if (fs.existsSync(dir)) return fs.realpathSync(dir);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (who.uid === undefined) return dir;
  fs.chownSync(dir, who.uid, who.gid!);
  const reach = await execa('test', ['-w', dir], { uid: who.uid, gid: who.gid, reject: false });
  if (reach.exitCode === 0) return dir;
  fs.rmdirSync(dir);
  const id = crypto.createHash('sha1').update(home).digest('hex').slice(0, 10);
  const parent = path.join('/var/tmp', `mqlab-${id}`);
  const outside = path.join(parent, 'postgres');
  for (const d of [parent, outside]) {
    fs.mkdirSync(d, { recursive: true, mode: 0o700 });
    fs.chownSync(d, who.uid, who.gid!); // the cluster's user must be able to enter both
  }
  fs.symlinkSync(outside, dir);
  return outside;
}

const CONF = `
# --- mqlab (local backend) ---
listen_addresses = '127.0.0.1'
port = ${PORTS.postgres}
unix_socket_directories = ''
max_connections = 50
`;

export async function startPostgres(home: string, log: (line: string) => void): Promise<'started' | 'running'> {
  const bin = pgBinDir();
  if (!bin) throw new EnvError('postgresql is not installed', 'run `bash scripts/install-services.sh` (as root), or use Docker: mqlab up --backend docker');
  const who = runAs();
  const dir = await clusterDir(home, who);
  const data = path.join(dir, 'data');
  const as = { uid: who.uid, gid: who.gid, env: { ...process.env, HOME: dir, LC_ALL: 'C' }, cwd: dir };
  if (!fs.existsSync(path.join(data, 'PG_VERSION'))) {
    log(`creating a PostgreSQL cluster in ${data} (runs as ${who.name})`);
    const pwfile = path.join(dir, 'superuser.pw');
    fs.writeFileSync(pwfile, ACCOUNTS.pgSuperuser.password + '\n', { mode: 0o600 });
    if (who.uid !== undefined) fs.chownSync(pwfile, who.uid, who.gid!);
    const init = await execa(path.join(bin, 'initdb'), ['-D', data, '-U', ACCOUNTS.pgSuperuser.user, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C'], { ...as, reject: false });
    fs.rmSync(pwfile);
    if (init.exitCode !== 0) {
      fs.rmSync(data, { recursive: true, force: true }); // a half-made cluster would break the next `up`
      throw new EnvError(`could not create the PostgreSQL cluster: ${lastLine(init.stderr || init.stdout)}`, `check that user ${who.name} can write ${dir}`);
    }
    fs.appendFileSync(path.join(data, 'postgresql.conf'), CONF);
  }
  const status = await execa(path.join(bin, 'pg_ctl'), ['-D', data, 'status'], { ...as, reject: false });
  if (status.exitCode === 0) return 'running';
  const r = await execa(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'postgres.log'), '-w', '-t', '60', 'start'], { ...as, reject: false });
  if (r.exitCode !== 0) {
    const log = path.join(dir, 'postgres.log');
    const fatal = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter((l) => /FATAL|could not/.test(l)).pop() : undefined;
    const inUse = /Address already in use|could not bind/.test(fatal ?? '');
    throw new EnvError(
      `PostgreSQL did not start: ${inUse ? `port ${PORTS.postgres} is in use by another program` : (fatal?.trim() ?? lastLine(r.stderr || r.stdout))}`,
      inUse ? `stop whatever listens on 127.0.0.1:${PORTS.postgres} (another mqlab checkout? run \`mqlab down\` there)` : `see ${log}`,
    );
  }
  return 'started';
}

export async function stopPostgres(home: string): Promise<boolean> {
  const bin = pgBinDir();
  const link = path.join(home, 'postgres');
  if (!bin || !fs.existsSync(path.join(link, 'data', 'PG_VERSION'))) return false;
  // the real path: the cluster's user may not be able to enter the project directory (see clusterDir)
  const dir = fs.realpathSync(link);
  const who = runAs();
  const r = await execa(path.join(bin, 'pg_ctl'), ['-D', path.join(dir, 'data'), '-m', 'fast', '-w', 'stop'], { uid: who.uid, gid: who.gid, reject: false, cwd: dir });
  return r.exitCode === 0;
}

/** remove the cluster, including its directory outside the project when it has one */
export function removePostgres(home: string): void {
  const dir = path.join(home, 'postgres');
  try {
    if (fs.lstatSync(dir).isSymbolicLink()) fs.rmSync(path.dirname(fs.realpathSync(dir)), { recursive: true, force: true });
  } catch {
    /* nothing there */
  }
}

/** database `lab`, role `app`, schema `lab` owned by app: config/postgres/init.sql, as docker runs it */
export async function provisionPostgres(): Promise<void> {
  const admin = (db: string) =>
    postgres({ host: '127.0.0.1', port: PORTS.postgres, user: ACCOUNTS.pgSuperuser.user, password: ACCOUNTS.pgSuperuser.password, database: db, onnotice: () => {}, max: 1 });
  const root = admin('postgres');
  try {
    const [exists] = await root`select 1 from pg_database where datname = ${ACCOUNTS.database}`;
    if (!exists) await root.unsafe(`CREATE DATABASE ${ACCOUNTS.database}`);
  } finally {
    await root.end({ timeout: 1 });
  }
  const lab = admin(ACCOUNTS.database);
  try {
    await lab.unsafe(fs.readFileSync(path.join(PROJECT_ROOT, 'config', 'postgres', 'init.sql'), 'utf8'));
  } finally {
    await lab.end({ timeout: 1 });
  }
}

const lastLine = (text: string) => text.trim().split('\n').filter(Boolean).pop() ?? '(no output)';
