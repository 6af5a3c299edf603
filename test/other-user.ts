/**
 * A second, unprivileged local account for tests of what another user of the machine can do (the
 * tests run as root in CI): `mqlab-other`, made once with `useradd` (no home, no login shell) and
 * kept. `asOtherUser` runs a Node script as that account (runuser), from `/`, with nothing of root's
 * environment but PATH: what it reaches is what any local account reaches.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

export const OTHER_USER = 'mqlab-other';

/** the account exists (made when missing); throws with why when it cannot be made (not root) */
export async function ensureOtherUser(): Promise<void> {
  if ((await execa('id', ['-u', OTHER_USER], { reject: false })).exitCode === 0) return;
  if (process.getuid?.() !== 0) throw new Error(`the tests of another local user need root to make ${OTHER_USER}`);
  const r = await execa('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', OTHER_USER], {
    reject: false,
  });
  // another test file may have made it at the same moment
  if (r.exitCode !== 0 && (await execa('id', ['-u', OTHER_USER], { reject: false })).exitCode !== 0)
    throw new Error(`useradd ${OTHER_USER} failed: ${r.stderr}`);
}

/** `node -e script` as the other user: its stdout, exit code and stderr */
export async function asOtherUser(script: string, args: string[] = [], timeoutMs = 60_000) {
  const r = await execa('runuser', ['-u', OTHER_USER, '--', process.execPath, '-e', script, '--', ...args], {
    reject: false,
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    extendEnv: false,
    timeout: timeoutMs,
  });
  return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Local accounts with a home folder, as a class's students have on the teacher's machine: `prefix1`
 * … `prefixN`, made once with `useradd --create-home` (login shell bash) and kept, like OTHER_USER.
 */
export async function ensureStudentUsers(prefix: string, n: number): Promise<string[]> {
  const names = Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
  for (const name of names) {
    if ((await execa('id', ['-u', name], { reject: false })).exitCode === 0) continue;
    if (process.getuid?.() !== 0) throw new Error(`the tests of local students need root to make ${name}`);
    const r = await execa('useradd', ['--create-home', '--shell', '/bin/bash', name], { reject: false });
    if (r.exitCode !== 0 && (await execa('id', ['-u', name], { reject: false })).exitCode !== 0)
      throw new Error(`useradd ${name} failed: ${r.stderr}`);
  }
  return names;
}

/** `command` in a login shell of `user` (runuser -l: their home folder, their environment, none of root's) */
export async function asStudentUser(user: string, command: string, timeoutMs = 120_000) {
  const r = await execa('runuser', ['-l', user, '-c', command], {
    reject: false,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    extendEnv: false,
    timeout: timeoutMs,
  });
  return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * mqlab's CLI as `user` reaches it: this checkout's own when they can read it, else its runtime — bin,
 * the bundle (dist/cli, dependencies inside) and config, all `mqlab` needs — copied into a folder
 * they can (a CI checkout may sit under a folder only root enters). `remove` deletes such a copy.
 */
export async function cliFor(user: string, cli: string): Promise<{ cli: string; remove: () => void }> {
  if ((await execa('runuser', ['-u', user, '--', 'test', '-r', cli], { reject: false })).exitCode === 0)
    return { cli, remove: () => {} };
  const root = path.dirname(path.dirname(cli));
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-cli-copy-'));
  fs.chmodSync(copy, 0o755);
  for (const part of ['bin', 'config', 'package.json', path.join('dist', 'cli')])
    fs.cpSync(path.join(root, part), path.join(copy, part), {
      recursive: true,
      filter: (from) => !from.includes('.v8-cache'),
    });
  return { cli: path.join(copy, 'bin', 'mqlab.js'), remove: () => fs.rmSync(copy, { recursive: true, force: true }) };
}
