/**
 * Every command a lab page's "Try this" prints, run as printed (issue 46): `mqlab …` lines through a
 * shell with `mqlab` on PATH (the built CLI), in the namespace the page gives (`--namespace s3`) or
 * none, from a scratch folder; a whole SQL statement as typed into `mqlab psql`. A `--step` run is
 * given Enter at every pause. Each exits as the page says: 0, a broken variant's 1 with its
 * `BROKEN VARIANT` line, or the code named below; a command the page runs at a pause is run at that
 * pause. Not run here: `mqlab up …` (the services' own tests), the pages of labs that stop a service
 * (try-this-disruptive.int.test.ts, on the disruptive set) or need a cluster (try-this-*.cluster.int.test.ts,
 * in the cluster suite). Slow: about 50 lab runs, one after another (SERIAL).
 */
import { describe, expect, it } from 'vitest';
import { CONFIG, ROOT, useNamespace } from './helpers.js';
import { pagesCommands, type PrintedCommand } from './try-this.js';
import { printedShell } from './printed-shell.js';
import { registry } from '../labs/registry.js';

useNamespace('s3'); // the pages' own namespace; a command without --namespace runs in none, as printed

const { shell, atPauses } = printedShell();

/** what a command's exit code must be when it is not 0 (or a broken variant's 1) */
const EXIT: Record<string, number[]> = {
  'mqlab archive --namespace s3 purge --older-than 30': [2], // the page: a usage error, exit 2
  'mqlab hold --recover-timeout 1s': [0, 1], // the page: a race with the worker's tick
};

/** commands a page runs at a pause of a --step run: the run, its checkpoint, and how the run ends then */
const AT_PAUSE: Record<string, { run: string; checkpoint: string; then: 'continue' | 'interrupt'; code: number }> = {
  // hold 2: the policy cleared at letter-held loses the letter; the lab notices, and after Enter ends with its FAILs
  'mqlab ctl clear_policy -p lab me12-hold': {
    run: 'mqlab hold --step',
    checkpoint: 'letter-held',
    then: 'continue',
    code: 1,
  },
};

const byName = new Map(registry.map((l) => [l.name, l]));
const pages = pagesCommands(ROOT);

describe('every "Try this" command on every lab page, as printed', () => {
  it('the pages print commands (the extraction finds them)', () => {
    expect([...pages.values()].flat().length).toBeGreaterThan(60);
  });

  for (const [page, commands] of pages)
    it(
      page,
      async (ctx) => {
        const lab = byName.get(page);
        if (lab?.disruptive) return ctx.skip(`${page} stops a service: run on a set of its own`);
        const missing = await lab?.requires?.(CONFIG);
        if (missing) return ctx.skip(`${page} ${missing}`);
        const pausedActions = new Map(
          Object.entries(AT_PAUSE).filter(([action]) => commands.some((c) => c.text === action)),
        );
        // the pages' SQL changes a lab's tables "between two runs": a run in the page's namespace makes them
        // first, unless the page runs the lab itself before its first SQL (as a reader of the page does)
        const namespace = /--namespace (\S+)/.exec(
          commands.find((c) => c.kind === 'mqlab' && c.text.includes('--namespace'))?.text ?? '',
        )?.[1];
        const firstSql = commands.findIndex((c) => c.kind === 'sql');
        const ranBefore = commands
          .slice(0, Math.max(0, firstSql))
          .some((c) => c.kind === 'mqlab' && c.text.startsWith(`mqlab ${page} `) && !/ --names\b/.test(c.text));
        if (firstSql >= 0 && !ranBefore) {
          const first = await shell(`mqlab ${page}${namespace ? ` --namespace ${namespace}` : ''}`);
          expect(first.code, `${page}: the run before its SQL\n${first.out}`).toBe(0);
        }
        const runAtPause = new Set(pausedActions.keys());
        for (const c of commands) {
          const where = `${page}: ${c.text}`;
          if (c.kind === 'mqlab' && /^(MQLAB_\w+=\S+ )*mqlab up\b/.test(c.text)) continue; // the services' lifecycle (services tests)
          if (runAtPause.has(c.text)) continue; // run at its pause, with its run
          const paused = [...pausedActions].find(([, p]) => p.run === c.text);
          if (paused) {
            const [action, p] = paused;
            const r = await atPauses(c.text, [{ checkpoint: p.checkpoint, actions: [{ line: action }] }], p.then);
            expect(r.acted[0]?.code, `${page}: ${action} at ${p.checkpoint}: ${r.acted[0]?.out}\n${r.out}`).toBe(0);
            expect(r.code, `${where}\n${r.out}`).toBe(p.code);
            pausedActions.delete(action);
            continue;
          }
          const r = await run(c);
          const fault = /^MQLAB_FAULT=/.test(c.text);
          const codes = EXIT[c.text] ?? (fault ? [1] : [0]);
          expect(codes, `${where} exited ${r.code}\n${r.out}`).toContain(r.code);
          if (fault) expect(r.out, where).toMatch(/BROKEN VARIANT/);
        }
        expect([...pausedActions.keys()], `${page}: pauses never reached`).toEqual([]);
      },
      900_000,
    );
});

/** a printed command: an mqlab line as it is, a SQL statement through `mqlab psql` */
function run(c: PrintedCommand) {
  if (c.kind === 'mqlab') return shell(c.text);
  return shell(`mqlab psql -X -v ON_ERROR_STOP=1 -f -`, c.text);
}
