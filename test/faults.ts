/**
 * Helpers for the fault tests (`labs/<lab>/<lab>.faults.int.test.ts`): run a lab with a test-only
 * broken variant (MQLAB_FAULT=<lab>:<fault>, src/fault.ts) and assert that the checks that should
 * catch it print `FAIL <check>:` and that the lab exits 1.
 *
 * Write each expected line literally as 'FAIL <check>:' in the test file: scripts/unproven-checks.ts
 * reads those strings to list the checks no fault test shows failing.
 */
import { expect } from 'vitest';
import { mqlab, type CliRun } from './helpers.js';

export interface FaultRun {
  lab: string;
  /** the broken variants, as the lab names them in ctx.fault / rt.fault */
  faults: readonly string[];
  /** each namespace one file's own, so a leftover of another file never decides this one */
  namespace: string;
  /** the lines that must be printed: 'FAIL <check>:' each */
  fails: readonly string[];
  /** more arguments for the lab (shorter timeouts, so a run that cannot recover ends soon) */
  args?: readonly string[];
  /** no check may fail but those of `fails` (and of `alsoMayFail`); unset, other checks may fail too */
  only?: boolean;
  /**
   * with `only`: checks the run may fail as well, as plain names (not 'FAIL …:' strings, so they
   * do not count as shown failing), e.g. a timing check a loaded machine can fail too
   */
  alsoMayFail?: readonly string[];
}

/** run the broken lab; it must complete (no error), print each expected FAIL line, and exit 1 */
export async function expectFaultsFail({ lab, faults, namespace, fails, args = [], only = false, alsoMayFail = [] }: FaultRun): Promise<CliRun> {
  const fault = faults.map((f) => `${lab}:${f}`).join(',');
  const r = await mqlab([lab, '--namespace', namespace, ...args], { MQLAB_FAULT: fault });
  const output = `MQLAB_FAULT=${fault}\n${r.stdout}\n${r.stderr}`;
  expect(fails.length, 'a fault test names the checks it expects to fail').toBeGreaterThan(0);
  for (const line of fails) {
    expect(line, 'the form is FAIL <check>:').toMatch(/^FAIL [^\s:]+:$/);
    expect(r.lines.some((l) => l.startsWith(`${line} `)), `${line} in:\n${output}`).toBe(true);
  }
  if (only) {
    const allowed = new Set([...fails.map((l) => l.slice('FAIL '.length, -1)), ...alsoMayFail]);
    const failed = r.lines.flatMap((l) => /^FAIL ([^\s:]+): /.exec(l)?.[1] ?? []);
    expect(failed.filter((name) => !allowed.has(name)), `no other check fails:\n${output}`).toEqual([]);
  }
  expect(r.stdout, output).not.toContain('the experiment did not complete');
  expect(r.stdout.trim().split('\n').pop(), output).toMatch(/^RESULT: \d+ assertion\(s\) FAILED$/);
  expect(r.code, output).toBe(1);
  return r;
}
