/**
 * Where mqlab's own RabbitMQ node and PostgreSQL cluster run: on this machine's packages
 * (`system`), or inside a private Debian root (`chroot`). A Host turns "run this program as that
 * account" into a process to spawn, and says where each service keeps its files — as seen by the
 * service (inner) and by mqlab (outer). Both run as an unprivileged account when mqlab is root.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { EnvError } from '../core/errors.js';
import type { Config } from '../core/config.js';
import { rootDir } from './debian-root.js';
import { foreignLink, isLink, notOwnDir, outsideDir } from './links.js';

/** a service's account: its uid and gid, or neither for the caller itself (mqlab does not run as root) */
export type Account = { name: string; uid: number; gid: number } | { name: string; uid?: undefined; gid?: undefined };

/** the spawn options that run a process as `who`: none for the caller itself */
const runAs = (who: Account) => (who.uid === undefined ? {} : { uid: who.uid, gid: who.gid });

export interface Host {
  kind: 'system' | 'chroot';
  /** '' for the machine's own packages; the root folder otherwise */
  root: string;
  home: string;
}

export const systemHost = (home: string): Host => ({ kind: 'system', root: '', home });
export const chrootHost = (home: string, root: string): Host => ({ kind: 'chroot', root, home });
/** the Host of a data folder's backend: the private root under HOME, or this machine */
export const hostOf = (config: Pick<Config, 'home'>, backend: 'chroot' | 'system'): Host =>
  backend === 'chroot' ? chrootHost(config.home, rootDir(config.home)) : systemHost(config.home);

/** a path inside the host as mqlab sees it */
export const outer = (host: Host, inner: string) => (host.root ? path.join(host.root, inner) : inner);

const isRoot = () => process.getuid?.() === 0;

/** the account a service runs as: the first of `names` in the host's passwd when root, else the caller */
export function account(host: Host, names: string[]): Account {
  if (!isRoot()) return { name: os.userInfo().username };
  const passwd = fs.readFileSync(outer(host, '/etc/passwd'), 'utf8').split('\n');
  for (const name of names) {
    const line = passwd.find((l) => l.startsWith(name + ':'));
    if (line) {
      const [, , uid, gid] = line.split(':');
      return { name, uid: Number(uid), gid: Number(gid) };
    }
  }
  throw new EnvError(
    `no unprivileged account (${names.join(', ')}) exists to run the service`,
    'create one, or run mqlab as a normal user',
  );
}

export function chownTo(p: string, who: Account): void {
  if (who.uid !== undefined) fs.chownSync(p, who.uid, who.gid);
}

export interface Spawnable {
  file: string;
  args: string[];
  options: { uid?: number; gid?: number; env: NodeJS.ProcessEnv; cwd: string };
}

/** `cmd args` run as `who` with exactly `env` (plus PATH) in `cwd` (inner paths) */
export function command(
  host: Host,
  who: Account,
  cmd: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Spawnable {
  const full = { PATH: '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin', LC_ALL: 'C', ...env };
  if (!host.root) return { file: cmd, args, options: { ...runAs(who), env: full, cwd } };
  const spec = who.uid === undefined ? [] : [`--userspec=${who.uid}:${who.gid}`];
  const vars = Object.entries(full).map(([k, v]) => `${k}=${v}`);
  return {
    file: 'chroot',
    args: [...spec, host.root, '/usr/bin/env', '-i', '-C', cwd, ...vars, cmd, ...args],
    options: { env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' }, cwd: host.root },
  };
}

export async function run(
  host: Host,
  who: Account,
  cmd: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
) {
  const c = command(host, who, cmd, args, env, cwd);
  // a process group of its own, ended whole at the bound or when mqlab exits: a program that leaves a
  // process behind holding its output (rabbitmqctl's escript VM, under chroot and a script) would
  // otherwise keep the call waiting for ever, though the one execa started was gone
  const sub = execa(c.file, c.args, { ...c.options, reject: false, extendEnv: false, detached: true });
  const killGroup = () => {
    try {
      if (sub.pid) process.kill(-sub.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  };
  const timer = setTimeout(killGroup, RUN_BOUND_MS);
  process.once('exit', killGroup);
  try {
    return await sub;
  } finally {
    clearTimeout(timer);
    process.removeListener('exit', killGroup);
  }
}

/** the longest a service program mqlab runs (initdb, pg_ctl, rabbitmqctl, epmd -kill) may take */
const RUN_BOUND_MS = 120_000;

/**
 * The folder a service keeps its data in (inner path), owned by `who`. On the machine's packages
 * as root, HOME/<service> must be reachable by the unprivileged account; when the project lives
 * somewhere it cannot enter (under /root, say), the data goes to /var/tmp/mqlab-<id>/<service> and
 * HOME/<service> links there. In a root, it is /mqlab/<service> inside the root.
 */
export async function serviceDir(host: Host, service: string, who: Account): Promise<string> {
  if (host.root) {
    const inner = `/mqlab/${service}`;
    const dir = outer(host, inner);
    fs.mkdirSync(outer(host, '/mqlab'), { recursive: true, mode: 0o755 });
    fs.chmodSync(outer(host, '/mqlab'), 0o755);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    chownTo(dir, who);
    return inner;
  }
  const dir = path.join(host.home, service);
  if (isLink(dir)) {
    const away = ownOutsideDir(host.home, service); // throws for a link mqlab did not make
    if (fs.existsSync(away)) {
      if (who.uid !== undefined && fs.statSync(away).uid !== who.uid)
        await execa('chown', ['-R', '--no-dereference', `${who.uid}:${who.gid}`, away]);
      return away;
    }
    fs.unlinkSync(dir); // its folder is gone (a reboot's /var/tmp cleaning): made anew below
  }
  if (fs.existsSync(dir)) {
    // made by an older mqlab that ran the node as root: hand it to the service's account
    if (who.uid !== undefined && fs.statSync(dir).uid !== who.uid)
      await execa('chown', ['-R', '--no-dereference', `${who.uid}:${who.gid}`, dir]);
    return dir;
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (who.uid === undefined) return dir;
  chownTo(dir, who);
  const reach = await execa('test', ['-w', dir], { uid: who.uid, gid: who.gid, reject: false });
  if (reach.exitCode === 0) return dir;
  fs.rmdirSync(dir);
  const away = outsideDir(host.home, service);
  const parent = path.dirname(away);
  fs.mkdirSync(parent, { recursive: true, mode: 0o711 });
  mustBeOwnDir(parent); // /var/tmp is everyone's: a folder or link someone else made there is refused
  fs.mkdirSync(away, { recursive: true, mode: 0o700 });
  mustBeOwnDir(away);
  chownTo(away, who);
  fs.symlinkSync(away, dir);
  return away;
}

/** a real folder (no link) of this process's user's that only it may add to, else an EnvError */
function mustBeOwnDir(dir: string): void {
  const why = notOwnDir(dir);
  if (why)
    throw new EnvError(
      `${why}: it is not a folder of ${os.userInfo().username}'s alone`,
      "remove it (someone else made it where mqlab keeps a service's data), then run `mqlab up` again",
    );
}

/**
 * the folder outside HOME behind HOME/<service>, when the link is exactly the one serviceDir makes;
 * else an EnvError (mqlab follows no other link)
 */
export function ownOutsideDir(home: string, service: string): string {
  const why = foreignLink(home, service);
  if (why)
    throw new EnvError(
      `${home.replace(/\/$/, '')}/${why}`,
      'mqlab reads, writes and deletes nothing through a link it did not make: remove the link or point MQLAB_HOME elsewhere',
    );
  return outsideDir(home, service);
}

/** the service's folder if it exists (inner path), without creating it; a link only when it is mqlab's own */
export function existingServiceDir(host: Host, service: string): string | null {
  if (host.root) return fs.existsSync(outer(host, `/mqlab/${service}`)) ? `/mqlab/${service}` : null;
  const dir = path.join(host.home, service);
  if (isLink(dir)) {
    try {
      const away = ownOutsideDir(host.home, service);
      return fs.existsSync(away) ? away : null;
    } catch {
      return null;
    }
  }
  return fs.existsSync(dir) ? dir : null;
}

/** remove what serviceDir made outside HOME (the /var/tmp folder behind the link; the link itself goes with HOME) */
export function removeOutsideDir(host: Host, service: string): void {
  if (!isLink(path.join(host.home, service))) return;
  const away = ownOutsideDir(host.home, service); // refused before (data-folder.ts deletable): never another link
  fs.rmSync(away, { recursive: true, force: true });
  const parent = path.dirname(away);
  if (fs.existsSync(parent) && fs.readdirSync(parent).length === 0) fs.rmdirSync(parent);
}
