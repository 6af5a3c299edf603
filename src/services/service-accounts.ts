/**
 * The chroot backend's service accounts are mqlab's own (security review D9). The Debian root's
 * packages pick the `rabbitmq` and `postgres` ids they find free inside the root (101, 102 …), and on
 * the machine those ids belong to someone else (avahi, messagebus, _ssh): whatever ran as that host
 * account read every set's Erlang cookie. mqlab makes two system accounts on the machine,
 * mqlab-rabbitmq and mqlab-postgres, and gives the root's accounts their ids, files included.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { EnvError } from '../core/errors.js';
import { oneInstallAtATime } from './apt.js';

/** the root's service account → the machine's account of mqlab's own that it runs as */
const OWN_ACCOUNTS = { rabbitmq: 'mqlab-rabbitmq', postgres: 'mqlab-postgres' } as const;

type Ids = { uid: number; gid: number };

/** the machine's account `name` (uid, primary gid), made as a system account with a group of its own when missing */
async function hostAccount(name: string, log: (line: string) => void): Promise<Ids> {
  const look = async () => {
    const r = await execa('getent', ['passwd', name], { reject: false });
    const [, , uid, gid] = r.stdout.split(':');
    return r.exitCode === 0 ? { uid: Number(uid), gid: Number(gid) } : null;
  };
  const found = await look();
  if (found) return found;
  // one at a time on the machine: two useradds at once, one finds /etc/passwd locked and fails
  return oneInstallAtATime('accounts', `making the service account ${name}`, log, async () => {
    const meanwhile = await look(); // another `mqlab up` made it while this one waited
    if (meanwhile) return meanwhile;
    const made = await execa(
      'useradd',
      [
        '--system',
        '--user-group',
        '--no-create-home',
        '--home-dir',
        '/nonexistent',
        '--shell',
        '/usr/sbin/nologin',
        name,
      ],
      { reject: false },
    );
    const now = await look();
    if (now) return now;
    throw new EnvError(
      `could not make the service account ${name}: ${made.stderr.trim() || `useradd exited with ${made.exitCode}`}`,
      `make it yourself (useradd --system --user-group --no-create-home ${name}), then run \`mqlab up\` again`,
    );
  });
}

/** a passwd or group file's lines as fields */
const table = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(':'));

/**
 * the id changes that give the root's `rabbitmq` and `postgres` (user and group) the machine's ids of
 * mqlab's own accounts: empty when they have them; an EnvError when another of the root's accounts
 * holds one of those ids
 */
export function idChanges(
  passwd: string[][],
  group: string[][],
  own: Record<string, Ids>,
): { uid: Map<number, number>; gid: Map<number, number> } {
  const uid = new Map<number, number>();
  const gid = new Map<number, number>();
  const change = (rows: string[][], name: string, to: number, map: Map<number, number>, what: string) => {
    const row = rows.find((r) => r[0] === name);
    if (!row) return;
    const from = Number(row[2]);
    if (from === to) return;
    const taken = rows.find((r) => r[0] !== name && Number(r[2]) === to && !Object.keys(own).includes(r[0]!));
    if (taken)
      throw new EnvError(
        `the Debian root's ${what} ${taken[0]} has id ${to}, the machine's id for ${name}'s account of mqlab's own`,
        'run `mqlab down --volumes` and `mqlab up` for a fresh root; if it persists, remove the cached root (/var/cache/mqlab)',
      );
    map.set(from, to);
  };
  for (const [name, ids] of Object.entries(own)) {
    change(passwd, name, ids.uid, uid, 'user');
    change(group, name, ids.gid, gid, 'group');
  }
  return { uid, gid };
}

/** the rows with `name`'s id (field 2) and, for passwd, primary group (field 3) set from `own` */
function rewrite(rows: string[][], own: Record<string, Ids>, isPasswd: boolean): string {
  return (
    rows
      .map((r) => {
        const ids = own[r[0]!];
        if (!ids) return r.join(':');
        const out = [...r];
        out[2] = String(isPasswd ? ids.uid : ids.gid);
        if (isPasswd) out[3] = String(ids.gid);
        return out.join(':');
      })
      .join('\n') + '\n'
  );
}

/** every file of the root (one file system: never a mount in it) whose owner or group changes, changed in one pass */
function remapTree(root: string, uid: Map<number, number>, gid: Map<number, number>): number {
  const dev = fs.lstatSync(root).dev;
  let changed = 0;
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    if (st.dev !== dev) return;
    const u = uid.get(st.uid);
    const g = gid.get(st.gid);
    if (u !== undefined || g !== undefined) {
      fs.lchownSync(p, u ?? st.uid, g ?? st.gid);
      // chown clears set-id bits; the root's files of these accounts have none that matter, but keep the mode
      if (!st.isSymbolicLink() && st.mode & 0o6000) fs.chmodSync(p, st.mode & 0o7777);
      changed++;
    }
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) walk(path.join(p, e));
  };
  walk(root);
  return changed;
}

/** write a file whole or not at all */
function replaceFile(file: string, text: string): void {
  const mode = fs.statSync(file).mode & 0o777;
  fs.writeFileSync(`${file}.mqlab-tmp`, text, { mode });
  fs.renameSync(`${file}.mqlab-tmp`, file);
}

/** does a process run inside `root` (its /proc/<pid>/root is the root): a service of the set, or a shell in it */
function rootInUse(root: string): boolean {
  const real = fs.realpathSync(root);
  for (const pid of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      if (fs.readlinkSync(`/proc/${pid}/root`) === real) return true;
    } catch {
      /* gone, or not ours to read */
    }
  }
  return false;
}

/**
 * give the root's `rabbitmq` and `postgres` the ids of mqlab's own accounts on the machine (made when
 * missing), with their files: once per root, while none of its services runs (as root only)
 */
export async function adoptOwnAccounts(root: string, log: (line: string) => void): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const own: Record<string, Ids> = {};
  for (const [inRoot, onHost] of Object.entries(OWN_ACCOUNTS)) own[inRoot] = await hostAccount(onHost, log);
  const passwdFile = path.join(root, 'etc/passwd');
  const groupFile = path.join(root, 'etc/group');
  const passwd = table(passwdFile);
  const group = table(groupFile);
  const { uid, gid } = idChanges(passwd, group, own);
  if (uid.size === 0 && gid.size === 0) return;
  if (rootInUse(root)) {
    log(
      `the root's services still run as the ids its packages picked: \`mqlab down\`, then \`mqlab up\` gives them mqlab's own`,
    );
    return;
  }
  const files = remapTree(root, uid, gid); // first the files, then the names: a kill between is redone
  replaceFile(groupFile, rewrite(group, own, false));
  replaceFile(passwdFile, rewrite(passwd, own, true));
  log(
    `the root's rabbitmq and postgres now run as the machine's ${Object.values(OWN_ACCOUNTS).join(' and ')} (${files} files handed over)`,
  );
}
