/**
 * The set lock: one set of mqlab's services (one data folder) is shared by every run on it, but a
 * run that stops, restarts or kills one of its services holds it alone. Ordinary runs hold the
 * lock shared, disruptive ones exclusively, across processes: flock(2) on `lock/set.lock` in the
 * data folder, which the kernel releases when the holder dies (a killed mqlab never blocks the
 * next run). A second lock, `lock/gate.lock`, is taken briefly by everyone on the way in and held
 * by an exclusive waiter until it has the set: runs arriving later queue behind it, so a stream of
 * ordinary runs cannot starve an outage.
 *
 * The locks are taken by `flock -n` (util-linux) on a descriptor this process opened and hands the
 * child: the lock belongs to the open file, which stays with this process (O_CLOEXEC keeps it out
 * of the services a lab starts). Each holder and waiter writes `lock/holders/<pid>.json` (what it
 * runs, what it is doing) so a waiter can say what it waits for; files of dead pids are stale and
 * removed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { EnvError } from '../core/errors.js';
import { sleep } from '../core/time.js';
import { MARKER } from './data-folder.js';

type LockMode = 'shared' | 'exclusive';

export interface Holder {
  pid: number;
  /** what runs: a lab's name, `all`, `up`, `down` */
  what: string;
  mode: LockMode;
  state: 'waiting' | 'holding';
  /** an exclusive holder's current step, as a waiter says it: "to start PostgreSQL again" */
  doing?: string;
  since: string;
}

interface HoldOptions {
  mode: LockMode;
  what: string;
  /** false: one line and exit 2 when the set is busy (--no-wait) */
  wait: boolean;
  /** how long to wait at most */
  boundMs: number;
  say: (line: string) => void;
  signal?: AbortSignal;
  pollMs?: number;
  /** false: the waiting line does not offer --no-wait (a command without it) */
  offerNoWait?: boolean;
  /** the exclusive waiters after the first, as the waiting line names them */
  others?: string;
  /** what the waiter gets, as its last line names it: "the services" */
  got?: string;
}

export interface SetLock {
  /** an exclusive holder's step, for the waiters' line */
  note(doing: string): void;
  release(): void;
}

const lockDir = (home: string) => path.join(home, 'lock');
const holdersDir = (home: string) => path.join(lockDir(home), 'holders');

/** the set lock this process holds (holdHome), so a lab's outage (src/engine/outage.ts) can say what it is doing */
let current: SetLock | null = null;
export const noteSetLock = (doing: string) => current?.note(doing);

/** flock(1) (util-linux) is not here: runs go unlocked (holdHome) */
class NoFlock extends Error {}

/** what one attempt on the way in got: both locks, the gate only (the set is busy), or neither (false) */
type Attempt = 'both' | 'gate' | false;

/**
 * `flock -n` on the gate (exclusive), then on the set in `mode`, in one process: the way in starts
 * one child, not one per lock (each start held this process for 5-12 ms of a 2-core machine, during
 * which the run's connections, begun meanwhile by src/engine/early-start.ts, did not move). NoFlock
 * without the tool (found out by this first call, not by a `flock --version` of its own). Not
 * spawnSync: the connections go on while it runs.
 */
function tryLocks(gateFd: number, setFd: number, mode: LockMode): Promise<Attempt> {
  // -E: the exit code of a lock held elsewhere, apart from flock's own failures
  // a shared run takes the gate shared: ten of them starting at once pass it together (taken exclusively,
  // each queued behind the others' flock processes: 3-8 s on a busy 2-core machine, and a line saying it
  // waited for "6 run(s) on this set to finish"); an exclusive waiter still takes it alone and keeps it
  const flag = mode === 'exclusive' ? '-x' : '-s';
  const script = `flock -n -E 10 ${flag} 3 && exec flock -n -E 11 ${flag} 4`;
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'ignore', 'pipe', gateFd, setFd] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (err) => reject(failed(err.message)));
    child.on('close', (status) => {
      if (status === 0) resolve('both');
      else if (status === 10) resolve(false);
      else if (status === 11) resolve('gate');
      else if (status === 127) reject(new NoFlock());
      else reject(failed(stderr.trim() || String(status)));
    });
  });
}

/** One `flock -n` on `fd` alone (the set, while this process holds the gate): true when it got the lock */
function tryLock(fd: number, mode: LockMode): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn('flock', ['-n', '-E', '10', mode === 'exclusive' ? '-x' : '-s', '3'], {
      stdio: ['ignore', 'ignore', 'pipe', fd],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new NoFlock() : failed(err.message)),
    );
    child.on('close', (status) => {
      if (status === 0) resolve(true);
      else if (status === 10) resolve(false);
      else reject(failed(stderr.trim() || String(status)));
    });
  });
}

const failed = (why: string) =>
  new EnvError(
    `flock on the set lock failed: ${why}`,
    'check that util-linux is installed and the data folder is writable',
  );

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** the holders and waiters whose process still runs; stale files (dead pids) are removed, and returned apart */
export function readHolders(home: string, self = process.pid): { live: Holder[]; stale: Holder[] } {
  const dir = holdersDir(home);
  const live: Holder[] = [];
  const stale: Holder[] = [];
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')) : []) {
    const file = path.join(dir, f);
    let h: Holder;
    try {
      h = JSON.parse(fs.readFileSync(file, 'utf8')) as Holder;
    } catch {
      continue; // being written, or gone
    }
    if (h.pid === self) continue;
    if (alive(h.pid)) live.push(h);
    else {
      stale.push(h);
      fs.rmSync(file, { force: true });
    }
  }
  return { live, stale };
}

/**
 * What a waiter waits for, from the live holders, as its line says it: an exclusive run (a lab that
 * stops services) by name and step; for an exclusive waiter, the shared runs it needs gone (it must
 * have the set alone); for a shared waiter with no exclusive run about, only other runs passing the
 * way in at the same moment: nothing it has to wait to finish.
 */
export function waitingFor(
  live: readonly Holder[],
  others = 'run(s) that stop services',
  mode: LockMode = 'shared',
  setBusy = false,
): string {
  const exclusive = live
    .filter((h) => h.mode === 'exclusive')
    .sort((a, b) => (a.state === b.state ? a.since.localeCompare(b.since) : a.state === 'holding' ? -1 : 1));
  const [first, ...more] = exclusive;
  if (first) {
    const step = first.state === 'holding' ? (first.doing ?? 'to finish') : 'to get the set (runs on it finish first)';
    return `${first.what} (pid ${first.pid}) ${step}${more.length ? `, then ${more.length} more ${others}` : ''}`;
  }
  const holding = live.filter((h) => h.state === 'holding');
  const named = (hs: readonly Holder[]) =>
    `${hs
      .slice(0, 3)
      .map((h) => `${h.what} pid ${h.pid}`)
      .join(', ')}${hs.length > 3 ? ', …' : ''}`;
  if (mode === 'shared' && !setBusy)
    return live.length
      ? `the way in: ${live.length} other run(s) are starting on this set at the same moment (shared runs: none waits for another to finish)`
      : 'the way in: another run is starting on this set at the same moment';
  if (holding.length && mode === 'exclusive')
    return `${holding.length} shared run(s) on this set to finish (${named(holding)}): this run stops services, so it needs the set alone`;
  return 'another mqlab run on this set to finish';
}

/** the line about a run that died holding the set in the middle of an outage, or null */
export function diedDuringOutage(stale: readonly Holder[]): string | null {
  const h = stale.find((s) => s.mode === 'exclusive' && s.state === 'holding' && s.doing?.startsWith('to start '));
  return h
    ? `${h.what} (pid ${h.pid}) ended while it was waiting ${h.doing}: if a lab cannot connect, run \`mqlab up\``
    : null;
}

const minutes = (ms: number) => (ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`);

/** take the set lock of `home` in `mode`: waits (saying for what) up to boundMs, or refuses at once without `wait` */
export async function holdSet(home: string, o: HoldOptions): Promise<SetLock> {
  let setFd: number;
  let gateFd: number;
  try {
    fs.mkdirSync(holdersDir(home), { recursive: true });
    setFd = fs.openSync(path.join(lockDir(home), 'set.lock'), 'a');
    gateFd = fs.openSync(path.join(lockDir(home), 'gate.lock'), 'a');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') throw err;
    throw new EnvError(
      `cannot take the set lock in ${lockDir(home)}: ${code} (the data folder of another user, who ran \`mqlab up\`)`,
      'leave MQLAB_HOME unset (your own state folder is used) and use the URLs you were given, or point MQLAB_HOME at a folder of yours',
    );
  }
  const mine = path.join(holdersDir(home), `${process.pid}.json`);
  const holder: Holder = {
    pid: process.pid,
    what: o.what,
    mode: o.mode,
    state: 'waiting',
    since: new Date().toISOString(),
  };
  // whole files only (a waiter reading one half-written would not see this holder): write, then rename
  const write = () => {
    fs.writeFileSync(`${mine}.tmp`, JSON.stringify(holder));
    fs.renameSync(`${mine}.tmp`, mine);
  };
  // each descriptor closed once: a number closed before is reused at once (a socket of the run's own
  // pool), and a second close took that socket from under libuv, which aborted the process on its next
  // epoll_ctl (SIGABRT in 5 of 8 Ctrl-C runs of db-outage under load: the gate was closed twice)
  const open = new Set([setFd, gateFd]);
  const close = (fd: number) => {
    if (open.delete(fd)) fs.closeSync(fd);
  };
  const closeAll = () => {
    for (const fd of [...open]) close(fd);
    fs.rmSync(mine, { force: true });
  };
  const started = Date.now();
  let said = '';
  let saidAt = 0;
  /** try until `attempt` gets its lock (anything but false), saying for what this run waits (polling every `pollMs`) */
  const wait = async <T>(attempt: () => Promise<T | false>, pollMs: number, setBusy = false): Promise<T> => {
    for (let got = await attempt(); ; got = await attempt()) {
      if (got !== false) return got;
      const { live } = readHolders(home);
      const what = waitingFor(live, o.others, o.mode, setBusy);
      if (!o.wait)
        throw new EnvError(
          `the services of ${home} are busy: waiting for ${what}`,
          'run it again when that run has ended, or leave out --no-wait to wait for it',
        );
      const waited = Date.now() - started;
      if (waited > o.boundMs)
        throw new EnvError(
          `gave up after ${minutes(waited)} waiting for ${what}`,
          'run it again when that run has ended (mqlab status shows the services)',
        );
      // runs that only share the set pass the gate together in a moment: say nothing for that
      const blocked = setBusy || live.some((h) => h.mode === 'exclusive') || o.mode === 'exclusive';
      const worth = blocked || waited > 2000;
      if (worth && (what !== said || Date.now() - saidAt > 30_000)) {
        const bound = blocked ? `, up to ${minutes(o.boundMs)}` : '';
        const how = said
          ? `${minutes(waited)} so far${bound}`
          : blocked
            ? `up to ${minutes(o.boundMs)}${o.offerNoWait === false ? '' : '; --no-wait to fail at once'}`
            : 'a moment';
        o.say(`waiting for ${what}… (${how})`);
        said = what;
        saidAt = Date.now();
      }
      await sleep(o.pollMs ?? pollMs, o.signal);
    }
  };
  try {
    write();
    // the gate, then the set; both at once in one process while the gate is free
    const got = await wait(() => tryLocks(gateFd, setFd, o.mode), 50);
    if (got === 'gate') await wait(() => tryLock(setFd, o.mode), o.mode === 'shared' ? 50 : 250, true);
    close(gateFd); // the next in line may queue now
  } catch (err) {
    closeAll();
    throw err;
  }
  holder.state = 'holding';
  holder.since = new Date().toISOString();
  write();
  const died = diedDuringOutage(readHolders(home).stale);
  if (died) o.say(died);
  if (said) o.say(`got ${o.got ?? 'the services'} after ${minutes(Date.now() - started)}`);
  const lock: SetLock = {
    note(doing) {
      holder.doing = doing;
      write();
    },
    release() {
      if (current === lock) current = null;
      closeAll();
    },
  };
  return lock;
}

/** how long a run waits for the set at most (ten disruptive runs one after another fit) */
const SET_WAIT_MS = 20 * 60_000;

/**
 * holdSet on a data folder `mqlab up` made (its marker there); null when there is none (services
 * of one's own URLs: nothing of mqlab's to share) or no flock(1) here.
 */
export async function holdHome(
  home: string,
  o: Omit<HoldOptions, 'boundMs'> & { boundMs?: number },
): Promise<SetLock | null> {
  if (!fs.existsSync(path.join(home, MARKER))) return null;
  return holdSet(home, { boundMs: SET_WAIT_MS, ...o }).then(
    (lock) => (current = lock),
    (err: unknown) => {
      if (err instanceof NoFlock) return null;
      throw err;
    },
  );
}

/**
 * An exclusive hold of a folder (mqlab's machine-wide installs: the Debian root's build, apt-get; one
 * `mqlab up` of a set at a time), beside whatever set lock this process holds; null without flock(1).
 * `turn`: how the waiting and the got lines name the others and the turn.
 */
export async function holdMachine(
  dir: string,
  what: string,
  say: (line: string) => void,
  turn: { others: string; got: string } = { others: 'install(s)', got: 'its turn to install' },
): Promise<SetLock | null> {
  try {
    return await holdSet(dir, {
      mode: 'exclusive',
      what,
      wait: true,
      boundMs: SET_WAIT_MS,
      say,
      offerNoWait: false,
      ...turn,
    });
  } catch (err) {
    if (err instanceof NoFlock) return null;
    throw err;
  }
}
