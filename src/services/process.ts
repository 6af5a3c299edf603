export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (!pidAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !pidAlive(pid);
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
