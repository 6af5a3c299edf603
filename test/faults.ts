/**
 * Helpers for the fault tests (`labs/<lab>/<lab>.faults.int.test.ts`): run a lab with test-only
 * broken variants (MQLAB_FAULT=<lab>:<fault>, src/lab/fault.ts) and assert that every check the lab's
 * catalogue (labs/<lab>/meta.ts) says they break prints `FAIL <check>:`, and that the lab exits 1.
 *
 * `describeFaults(meta, namespace, cases)` writes one test per case and one more that the cases run
 * every declared variant; `npm run proofs` checks that every declared check is in some variant's
 * `fails`. Together: every check is shown failing by a run.
 *
 * The cases of a file run at the same time, each in a namespace of its own (the file's, numbered):
 * a broken run mostly waits on the broker (a TTL, a delay, a consumer's idle bound), and a lab's
 * verdict must not depend on what else runs beside it. A lab that stops or kills a service runs its
 * cases one at a time (`oneAtATime`).
 */
import { describe, expect, it } from 'vitest';
import type { FaultName, LabSpec } from '../src/lab/lab.js';
import type { AnyOptions } from '../src/core/options.js';
import { mqlab, type CliRun } from './helpers.js';

type AnyMeta = LabSpec<AnyOptions, string, string, string>;

export interface FaultRun<M extends AnyMeta> {
  meta: M;
  /** the broken variants, as the lab's catalogue names them */
  faults: readonly FaultName<M['faults']>[];
  /** each namespace one file's own, so a leftover of another file never decides this one */
  namespace: string;
  /** more arguments for the lab (shorter timeouts, so a run that cannot recover ends soon) */
  args?: readonly string[];
  /** no check may fail but the variants' `fails` (and `alsoMayFail`); unset, other checks may fail too */
  only?: boolean;
  /** with `only`: checks the run may fail as well, e.g. a timing check a loaded machine can fail too */
  alsoMayFail?: readonly M['checks'][number][];
  /**
   * on a broker line where the variants show differently from the catalogue's `fails` (which say
   * what they break on the newest line): the checks this run must fail instead; say why beside it
   */
  failsOnThisLine?: readonly M['checks'][number][];
}

/** the checks a run of these variants must fail: the union of their catalogue entries' `fails` */
export function expectedFails<M extends AnyMeta>(meta: M, faults: readonly FaultName<M['faults']>[]): string[] {
  return [...new Set(faults.flatMap((f) => meta.faults[f]?.fails ?? []))];
}

/** the checks a run's lines print FAIL for */
export const failedNames = (lines: readonly string[]): string[] =>
  lines.flatMap((l) => /^FAIL ([^\s:]+): /.exec(l)?.[1] ?? []);

/** run the broken lab; it must complete (no error), print FAIL for each expected check, and exit 1 */
export async function expectFaultsFail<M extends AnyMeta>({
  meta,
  faults,
  namespace,
  args = [],
  only = false,
  alsoMayFail = [],
  failsOnThisLine,
}: FaultRun<M>): Promise<CliRun> {
  const fault = faults.map((f) => `${meta.name}:${f}`).join(',');
  const r = await mqlab([meta.name, '--namespace', namespace, ...args], { MQLAB_FAULT: fault });
  const output = `MQLAB_FAULT=${fault}\n${r.stdout}\n${r.stderr}`;
  const fails = failsOnThisLine ?? expectedFails(meta, faults);
  expect(fails.length, 'the variants name the checks they break').toBeGreaterThan(0);
  for (const name of fails)
    expect(
      r.lines.some((l) => l.startsWith(`FAIL ${name}: `)),
      `FAIL ${name}: in:\n${output}`,
    ).toBe(true);
  if (only) {
    const allowed = new Set<string>([...fails, ...alsoMayFail]);
    const failed = failedNames(r.lines);
    expect(
      failed.filter((name) => !allowed.has(name)),
      `no other check fails:\n${output}`,
    ).toEqual([]);
  }
  expect(r.stdout, output).not.toContain('the experiment did not complete');
  expect(r.stdout.trim().split('\n').pop(), output).toMatch(/^RESULT: \d+ assertion\(s\) FAILED$/);
  expect(r.code, output).toBe(1);
  return r;
}

export interface FaultCase<M extends AnyMeta> extends Omit<FaultRun<M>, 'meta' | 'namespace'> {
  /** what the broken run shows, as the test's title */
  title: string;
  /**
   * a run of its own kind (retries, a SKIP below a broker version): `standard` is the usual
   * expectFaultsFail; `namespace` is the case's own, for any other run it makes
   */
  run?: (
    standard: (more?: Pick<FaultRun<M>, 'failsOnThisLine'>) => Promise<CliRun>,
    namespace: string,
  ) => Promise<unknown>;
}

/** the namespace of a file's case `i`: the file's, cut to leave room, and the case's number (valid as --namespace) */
export const caseNamespace = (namespace: string, i: number): string =>
  `${namespace.slice(0, 22)}${String(i + 1).padStart(2, '0')}`;

/**
 * One test per case (variants that do not disturb each other may share a run), and a test that the
 * cases run every variant the lab declares: a variant no run uses shows nothing.
 */
export function describeFaults<M extends AnyMeta>(
  meta: M,
  namespace: string,
  cases: readonly FaultCase<M>[],
  {
    runElsewhere = [],
    oneAtATime = meta.disruptive === true,
  }: {
    /** variants another test file runs with expectFaultsFail (say why beside the call) */
    runElsewhere?: readonly FaultName<M['faults']>[];
    /**
     * its cases one after the other, in the file's namespace: a lab that stops or kills a service
     * (meta.disruptive, the default), or one that holds a core for its window
     */
    oneAtATime?: boolean;
  } = {},
): void {
  describe(`${meta.name}: broken variants fail the checks that observe them`, () => {
    for (const [i, { title, run, ...c }] of cases.entries()) {
      const ns = oneAtATime ? namespace : caseNamespace(namespace, i);
      const standard = (more: Pick<FaultRun<M>, 'failsOnThisLine'> = {}) =>
        expectFaultsFail({ meta, namespace: ns, ...c, ...more });
      (oneAtATime ? it : it.concurrent)(title, async () => void (await (run ? run(standard, ns) : standard())));
    }
    it('runs every variant the lab declares', () => {
      const ran = new Set<string>([...cases.flatMap((c) => c.faults), ...runElsewhere]);
      expect(Object.keys(meta.faults).filter((f) => !ran.has(f))).toEqual([]);
    });
  });
}
