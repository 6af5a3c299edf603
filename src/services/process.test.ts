import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pidRuns, waitGone, withSbin } from './process.js';

describe('pidRuns: a pid file names a process only while that process is the service', () => {
  it('needs an argument ending with the marker; a dead pid never runs', async () => {
    // a process whose last argument is a service folder, as a node's `-home <…>/rabbitmq-c2`
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', '/tmp/mqlab-x/rabbitmq-c2'], {
      stdio: 'ignore',
    });
    const pid = child.pid!;
    try {
      expect(pidRuns(pid)).toBe(true);
      expect(pidRuns(pid, '/rabbitmq-c2')).toBe(true);
      // the same pid, another service's marker: what a pid that came round again looks like
      expect(pidRuns(pid, '/rabbitmq-c3')).toBe(false);
      expect(pidRuns(pid, '/rabbitmq')).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
    expect(await waitGone(pid, 5000, '/rabbitmq-c2')).toBe(true);
    expect(pidRuns(pid, '/rabbitmq-c2')).toBe(false);
  });
});

describe('withSbin', () => {
  it('adds the sbin folders a non-login PATH lacks (chroot lives in /usr/sbin), keeping what is there', () => {
    expect(withSbin('/usr/local/bin:/usr/bin:/bin')).toBe('/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin');
    expect(withSbin('/usr/sbin:/usr/bin:/sbin:/bin')).toBe('/usr/sbin:/usr/bin:/sbin:/bin');
    expect(withSbin(undefined)).toBe('/usr/bin:/bin:/usr/sbin:/sbin');
  });
});
