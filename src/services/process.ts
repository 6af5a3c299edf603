import fs from 'node:fs';

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Is `pid` alive and still the process a pid file named: one of its arguments ends with `marker` (the
 * service's own folder, e.g. `/rabbitmq-c2`: a node runs with -home <its folder>)? With pid_max at 32768
 * a pid comes round again within a long CI run: a pid file that outlived its process may name another
 * one. A command line that cannot be read (no /proc) leaves `alive` as the answer.
 */
export function pidRuns(pid: number, marker?: string): boolean {
  if (!pidAlive(pid)) return false;
  if (!marker || !procfs) return true;
  try {
    return fs
      .readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .some((arg) => arg.endsWith(marker));
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT'; // ENOENT: it ended meanwhile
  }
}

const procfs = fs.existsSync('/proc/self/cmdline');

export async function waitGone(pid: number, timeoutMs: number, marker?: string): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (!pidRuns(pid, marker)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !pidRuns(pid, marker);
}

/**
 * PATH with /usr/sbin and /sbin (where chroot, debootstrap and runuser live) added when missing:
 * a non-login shell's PATH (`env -i`, some CI runners) may lack them.
 */
export function withSbin(path: string | undefined): string {
  const dirs = (path ?? '/usr/bin:/bin').split(':').filter(Boolean);
  for (const d of ['/usr/sbin', '/sbin']) if (!dirs.includes(d)) dirs.push(d);
  return dirs.join(':');
}

/** is `pid` stopped (SIGSTOP: state T in /proc/<pid>/stat)? false when it does not run or there is no /proc */
export function processStopped(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
  } catch {
    return false;
  }
}
