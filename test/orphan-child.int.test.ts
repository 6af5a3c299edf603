/**
 * A lab's child process never outlives mqlab (security review D19): with mqlab alone SIGKILLed (not
 * its process group), the consumer it started notices its new parent and ends within a second,
 * instead of holding the lab's queue for the next run.
 */
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, useNamespace } from './helpers.js';

const { namespace } = useNamespace(import.meta.url);

/** the pids whose parent is `ppid` and whose command line holds `text` */
function childrenOf(ppid: number, text: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8');
        return parent === ppid && cmd.includes(text) ? [Number(d)] : [];
      } catch {
        return [];
      }
    });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
};

async function until<T>(what: string, ms: number, probe: () => T | null | undefined | false): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a child process of a lab', () => {
  it('ends when mqlab alone is SIGKILLed (its process group untouched)', async () => {
    // --gate holds the consumer at each checkpoint: it is certainly running when mqlab dies
    const mqlab = spawn(process.execPath, [CLI, 'consumer-crash', '--gate', '20s'], {
      env: { ...process.env, NO_COLOR: '1', MQLAB_NAMESPACE: namespace },
      stdio: 'ignore',
      detached: true, // a group of its own: the kill below reaches mqlab alone, as in the review
    });
    const pid = mqlab.pid!;
    try {
      const [child] = await until('the consumer process', 60_000, () => {
        const c = childrenOf(pid, 'consumer');
        return c.length ? c : null;
      });
      process.kill(pid, 'SIGKILL');
      const goneAt = Date.now();
      await until('the consumer to end after mqlab died', 5_000, () => !alive(child!));
      expect(Date.now() - goneAt).toBeLessThan(5_000);
    } finally {
      try {
        process.kill(-pid, 'SIGKILL'); // whatever is left of the group
      } catch {
        /* gone */
      }
    }
  });
});
