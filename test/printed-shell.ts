/**
 * A terminal for commands mqlab prints (issue 46): a line run through /bin/sh from a scratch folder
 * with `mqlab` on PATH (the built CLI), no namespace and no broken variant in the environment unless
 * the line sets them, as a user types it. `set: 'typed'` also removes the variables that name a set
 * (MQLAB_PORT_OFFSET, MQLAB_HOME): the line must name the set itself, as after
 * `MQLAB_PORT_OFFSET=1000 mqlab up`; `'exported'` (the default) keeps them, as a shell that exported them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll } from 'vitest';
import { CLI } from './helpers.js';

export interface Typed {
  code: number;
  /** stdout, then stderr */
  out: string;
  stdout: string;
}

/**
 * what is done at a pause: a command typed (`line`), then the test's look at what it printed and what
 * the services show; without a line, only the look (what a page shows in the management UI)
 */
export interface PauseAction {
  line?: string;
  check?: (r: Typed) => void | Promise<void>;
}

/** a pause of a --step run and the commands typed at it */
export interface Pause {
  checkpoint: string;
  actions: PauseAction[];
}

export function printedShell({ set = 'exported' }: { set?: 'exported' | 'typed' } = {}) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-printed-'));
  const bin = path.join(scratch, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'mqlab'), `#!/bin/sh\nexec node ${JSON.stringify(CLI)} "$@"\n`, { mode: 0o755 });
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  const env = () => {
    const e: Record<string, string | undefined> = {
      ...process.env,
      NO_COLOR: '1',
      PATH: `${bin}:${process.env.PATH}`,
    };
    for (const k of ['MQLAB_NAMESPACE', 'MQLAB_FAULT', ...(set === 'typed' ? ['MQLAB_PORT_OFFSET', 'MQLAB_HOME'] : [])])
      delete e[k];
    return e;
  };

  /** run a printed line through the shell; a --step run gets Enter at each pause */
  async function shell(line: string, input = '\n'.repeat(200)): Promise<Typed> {
    const r = await execa(line, { shell: '/bin/sh', cwd: scratch, env: env(), extendEnv: false, input, reject: false });
    return { code: r.exitCode ?? -1, out: `${r.stdout}\n${r.stderr}`, stdout: r.stdout };
  }

  /**
   * a --step run: at each pause named in `pauses`, its `actions` typed one after the other (each checked
   * while the run waits), then Enter; every other pause Enter at once. After the last named pause, the run
   * goes on to its end (`continue`), or gets Enter and then Ctrl-C once it says it is waiting (`interrupt`,
   * as a page says)
   */
  async function atPauses(line: string, pauses: Pause[], then: 'continue' | 'interrupt') {
    // a process group of its own, as a terminal's job: Ctrl-C is SIGINT to the group (the shell and mqlab)
    const child = execa(line, {
      shell: '/bin/sh',
      cwd: scratch,
      env: env(),
      extendEnv: false,
      reject: false,
      detached: true,
    });
    let out = '';
    let seen = 0; // pauses answered
    const acted: Typed[] = [];
    const todo = [...pauses];
    let failed: unknown = null; // a check that failed at a pause: thrown once the run has ended
    const act = async (pause: Pause) => {
      try {
        for (const a of pause.actions) {
          const r = a.line === undefined ? { code: 0, out: '', stdout: '' } : await shell(a.line, '');
          if (a.line !== undefined) acted.push(r);
          await a.check?.(r);
        }
      } catch (err) {
        failed ??= err;
      }
    };
    const paused = new Promise<void>((resolve) => {
      let busy = false;
      const onData = async (b: Buffer) => {
        out += b.toString();
        const pausesNow = out.match(/press Enter/g)?.length ?? 0;
        if (busy || pausesNow <= seen) return;
        busy = true;
        seen = pausesNow;
        const at = [...out.slice(0, out.lastIndexOf('press Enter')).matchAll(/── checkpoint \d+: (\S+)/g)].at(-1)?.[1];
        const next = todo[0];
        if (next && at === next.checkpoint) {
          todo.shift();
          await act(next);
          if (!todo.length && then === 'interrupt') return resolve(); // Enter and Ctrl-C below
        }
        child.stdin?.write('\n');
        busy = false;
        if (!todo.length) resolve();
      };
      child.stdout?.on('data', (b: Buffer) => void onData(b));
      child.stderr?.on('data', (b: Buffer) => void onData(b));
    });
    await Promise.race([paused, child]);
    if (child.exitCode === null) {
      if (then === 'interrupt') {
        // Enter, as the page says; then Ctrl-C once the run is waiting (its progress line), or after 15 s
        child.stdin?.write('\n');
        const since = out.length;
        for (let i = 0; i < 150 && child.exitCode === null && !/waiting/.test(out.slice(since)); i++)
          await new Promise((r) => setTimeout(r, 100));
        process.kill(-child.pid!, 'SIGINT');
      } else child.stdin?.end('\n'.repeat(200));
    }
    const r = await child;
    if (failed) throw failed instanceof Error ? failed : new Error(JSON.stringify(failed));
    // the shell ended by the same Ctrl-C: its status is 128 + SIGINT, as a terminal's $? says
    return {
      code: r.exitCode ?? (r.signal === 'SIGINT' ? 130 : -1),
      out,
      stdout: r.stdout,
      acted,
      missed: todo.map((p) => p.checkpoint),
    };
  }

  return { shell, atPauses };
}
