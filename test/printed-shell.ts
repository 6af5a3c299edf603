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
  out: string;
}

/** what a command does at a pause: its line, and the test's look at what it printed and what the services show */
export interface PauseAction {
  line: string;
  check?: (r: Typed) => void | Promise<void>;
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
    return { code: r.exitCode ?? -1, out: `${r.stdout}\n${r.stderr}` };
  }

  /**
   * a --step run paused at `checkpoint` (earlier pauses continued with Enter), `actions` typed there one
   * after the other (each checked while the run waits), then continued, or Enter and Ctrl-C once the run
   * says it is waiting (`interrupt`, as a page says)
   */
  async function atPause(line: string, checkpoint: string, actions: PauseAction[], then: 'continue' | 'interrupt') {
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
    const acted: Typed[] = [];
    const reached = new Promise<void>((resolve) => {
      const onData = (b: Buffer) => {
        out += b.toString();
        if (new RegExp(`── checkpoint \\d+: ${checkpoint}\\b[\\s\\S]*press Enter`).test(out)) resolve();
        else if (/press Enter/.test(out.slice(-200))) child.stdin?.write('\n'); // an earlier pause
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
    });
    await Promise.race([reached, child]);
    let failed: unknown = null; // a check that failed at the pause: thrown once the run has ended
    if (child.exitCode === null) {
      try {
        for (const a of actions) {
          const r = await shell(a.line, '');
          acted.push(r);
          await a.check?.(r);
        }
      } catch (err) {
        failed = err;
      } finally {
        if (then === 'interrupt') {
          // Enter, as the page says; then Ctrl-C once the run is waiting (its progress line), or after 15 s
          child.stdin?.write('\n');
          const since = out.length;
          for (let i = 0; i < 150 && child.exitCode === null && !/waiting/.test(out.slice(since)); i++)
            await new Promise((r) => setTimeout(r, 100));
          process.kill(-child.pid!, 'SIGINT');
        } else child.stdin?.end('\n'.repeat(200));
      }
    }
    const r = await child;
    if (failed) throw failed instanceof Error ? failed : new Error(JSON.stringify(failed));
    // the shell ended by the same Ctrl-C: its status is 128 + SIGINT, as a terminal's $? says
    return { code: r.exitCode ?? (r.signal === 'SIGINT' ? 130 : -1), out, acted };
  }

  return { shell, atPause };
}
