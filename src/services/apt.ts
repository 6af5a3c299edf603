/**
 * A program mqlab needs from this machine's Debian packages (debootstrap for the chroot backend, nft for
 * the link cuts of a cluster): present, or installed with apt-get as root with a progress line (once per
 * machine), or an EnvError saying what to install.
 */
import { execa } from 'execa';
import { EnvError } from '../errors.js';
import { withProgress } from './progress.js';

export interface Needed {
  /** the program, run with `versionArgs` to see whether it is there */
  command: string;
  versionArgs: readonly string[];
  /** the Debian package that has it */
  pkg: string;
  /** what else the user can do when it cannot be installed: ", or use --backend system" */
  orElse?: string;
}

/** whether `command` runs here (ENOENT and a failed start are a no) */
export async function runs(command: string, args: readonly string[]): Promise<boolean> {
  const r = await execa(command, args, { reject: false }).catch(() => null);
  return r?.exitCode === 0;
}

export async function ensureProgram(need: Needed, log: (line: string) => void): Promise<void> {
  if (await runs(need.command, need.versionArgs)) return;
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
