/**
 * A program mqlab needs from this machine's Debian packages (debootstrap for the chroot backend, nft for
 * the link cuts of a cluster): present, or installed with apt-get as root with a progress line (once per
 * machine), or an EnvError saying what to install. mqlab's installs (these, the system backend's
 * packages, the Debian root) run one at a time on a machine: oneInstallAtATime.
 */
import path from 'node:path';
import { execa } from 'execa';
import { EnvError } from '../core/errors.js';
import { withProgress } from './progress.js';
import { holdMachine } from './set-lock.js';

/** mqlab's machine-wide cache (the chroot backend's Debian root; the lock of its installs): /var/cache/mqlab, or MQLAB_CACHE */
export const cacheDir = (env: NodeJS.ProcessEnv = process.env) => path.resolve(env.MQLAB_CACHE || '/var/cache/mqlab');

/** what mqlab installs, one at a time each: the machine's packages (apt-get), the Debian root (the cache) */
type Install = 'apt' | 'root' | 'accounts';
const holding: Record<Install, number> = { apt: 0, root: 0, accounts: 0 };
/**
 * `install` alone on this machine among mqlab's installs of its kind: two `mqlab up` at once (two sets,
 * a CI run's suites) would have two apt-get fight over the package lists' lock (the loser fails at
 * once), or two root builds share one folder. The second waits, saying for whom, then finds the work
 * done. A call inside a hold of the same kind runs in it.
 */
export async function oneInstallAtATime<T>(
  kind: Install,
  what: string,
  log: (line: string) => void,
  install: () => Promise<T>,
): Promise<T> {
  if (holding[kind] || process.getuid?.() !== 0) return install(); // not root: nothing is installed, the line says what to run
  const lock = await holdMachine(path.join(cacheDir(), kind), `mqlab up ${what}`, log);
  holding[kind]++;
  try {
    return await install();
  } finally {
    holding[kind]--;
    lock?.release();
  }
}

interface Needed {
  /** the program, run with `versionArgs` to see whether it is there */
  command: string;
  versionArgs: readonly string[];
  /** the Debian package that has it */
  pkg: string;
  /** what else the user can do when it cannot be installed: ", or use --backend system" */
  orElse?: string;
}

/** whether `command` runs here (ENOENT and a failed start are a no) */
async function runs(command: string, args: readonly string[]): Promise<boolean> {
  const r = await execa(command, args, { reject: false }).catch(() => null);
  return r?.exitCode === 0;
}

export async function ensureProgram(need: Needed, log: (line: string) => void): Promise<void> {
  if (await runs(need.command, need.versionArgs)) return;
  await oneInstallAtATime('apt', `installing ${need.pkg}`, log, () => install(need, log));
}

async function install(need: Needed, log: (line: string) => void): Promise<void> {
  if (await runs(need.command, need.versionArgs)) return; // another run installed it meanwhile
  const orElse = need.orElse ?? '';
  if (process.getuid?.() !== 0)
    throw new EnvError(`${need.command} is not installed`, `install it (sudo apt-get install ${need.pkg})${orElse}`);
  if (!(await runs('apt-get', ['--version'])))
    throw new EnvError(`${need.command} is not installed and there is no apt-get here`, `install ${need.pkg}${orElse}`);
  await withProgress(`installing ${need.pkg} with apt-get`, log, () =>
    execa('apt-get', ['-o', 'DPkg::Lock::Timeout=120', 'install', '-y', '-q', '--no-install-recommends', need.pkg], {
      all: true,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }),
  );
}
