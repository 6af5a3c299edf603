/**
 * A page's Try-this run as printed, command by command, with what each is expected to show (issue 46):
 * the commands come from the page (test/try-this.ts); `expect` says, by a command's text, its exit code,
 * what it prints and what the broker or the database shows after it, and which commands are typed at a
 * pause of which --step run. A command the page prints that `expect` does not name runs and must exit 0
 * (a broken variant's `MQLAB_FAULT=… mqlab …`: 1 and its BROKEN VARIANT line); a text in `expect` the page
 * no longer prints fails the test (the page changed: say what its new line shows).
 */
import { expect } from 'vitest';
import type { Pause, PauseAction, Typed, printedShell } from './printed-shell.js';
import type { PrintedCommand } from './try-this.js';

export interface Expected {
  /** the exit codes it may end with (default 0; a broken variant 1) */
  codes?: number[];
  /** what it printed and what the services show after it */
  check?: (r: Typed) => void | Promise<void>;
  /** a --step run: the commands typed at its pauses (each a command of the page, by its text: its own
   * `codes` and `check` hold there), then `look`: what the page shows in the management UI there */
  pauses?: { checkpoint: string; actions: string[]; look?: () => Promise<void> }[];
  /** how the --step run ends after its last pause: on to its end (default), or Enter and Ctrl-C */
  then?: 'continue' | 'interrupt';
  /** not run: a command the page shows for another set of services (`mqlab up --line 4.0`) */
  skip?: string;
}

/** run every command of `page`'s Try-this as printed, in page order; each command at a pause with its run */
export async function runPage(
  page: string,
  commands: PrintedCommand[],
  expected: Record<string, Expected>,
  { shell, atPauses }: ReturnType<typeof printedShell>,
): Promise<void> {
  const texts = commands.map((c) => c.text);
  expect(
    Object.keys(expected).filter((t) => !texts.includes(t)),
    `${page}: lines the test expects that the page no longer prints`,
  ).toEqual([]);
  const atPause = new Set(Object.values(expected).flatMap((e) => (e.pauses ?? []).flatMap((p) => p.actions)));
  for (const c of commands) {
    const e = expected[c.text] ?? {};
    const where = `${page}: ${c.text}`;
    if (e.skip || atPause.has(c.text)) continue;
    const fault = /^MQLAB_FAULT=/.test(c.text);
    const codes = e.codes ?? (fault ? [1] : [0]);
    let r: Typed;
    if (e.pauses) {
      const pauses: Pause[] = e.pauses.map((p) => ({
        checkpoint: p.checkpoint,
        actions: [
          ...p.actions.map((line): PauseAction => {
            const own = expected[line] ?? {};
            return {
              line,
              check: async (done) => {
                const at = `${page}: ${line} at ${p.checkpoint} exited ${done.code}\n${done.out}`;
                expect(own.codes ?? [0], at).toContain(done.code);
                await own.check?.(done);
              },
            };
          }),
          ...(p.look ? [{ check: p.look }] : []),
        ],
      }));
      const run = await atPauses(c.text, pauses, e.then ?? 'continue');
      expect(run.missed, `${where}: pauses never reached\n${run.out}`).toEqual([]);
      r = run;
    } else r = c.kind === 'mqlab' ? await shell(c.text) : await shell('mqlab psql -X -v ON_ERROR_STOP=1 -f -', c.text);
    expect(codes, `${where} exited ${r.code}\n${r.out}`).toContain(r.code);
    if (fault) expect(r.out, where).toMatch(/BROKEN VARIANT/);
    await e.check?.(r);
  }
}
