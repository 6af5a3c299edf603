/**
 * Pure pieces of `npm run proofs` (unproven-checks.ts): which check names a fault test asserts
 * failing, and which checks of which lab no fault test shows failing. Unit-tested in fault-proofs.test.ts.
 */

/** a lab's fault tests: labs/<lab>/<lab>.faults.int.test.ts */
export const FAULT_TEST = /^(.+?)\.faults(?:\.cluster)?\.int\.test\.ts$/;

/** the lab a fault test file belongs to, from its name; null for any other file */
export function labOfFaultTest(fileName: string): string | null {
  return FAULT_TEST.exec(fileName)?.[1] ?? null;
}

/**
 * The check names a fault test asserts failing: every string literal written 'FAIL <check>:'
 * (single, double or back quotes), the form test/faults.ts requires.
 */
export function assertedFails(source: string): Set<string> {
  const out = new Set<string>();
  for (const m of source.matchAll(/(['"`])FAIL ([^\s:'"`]+):\1/g)) out.add(m[2]!);
  return out;
}

export interface LabProof {
  lab: string;
  /** the lab's check names, from a run of the lab */
  checks: readonly string[];
  /** check names the lab's fault tests assert failing */
  proven: ReadonlySet<string>;
}

export interface ProofGaps {
  lab: string;
  /** checks no fault test shows failing */
  unproven: string[];
  /** names a fault test asserts that the lab has no check for (a typo, or a check that went away) */
  unknown: string[];
}

export function gaps({ lab, checks, proven }: LabProof): ProofGaps {
  return { lab, unproven: checks.filter((c) => !proven.has(c)), unknown: [...proven].filter((p) => !checks.includes(p)).sort() };
}

/** one line per lab, then the verdict; ok when no lab has a gap */
export function report(all: readonly ProofGaps[], checksOf: (lab: string) => number): { lines: string[]; ok: boolean } {
  const lines: string[] = [];
  let unproven = 0;
  let unknown = 0;
  for (const g of all) {
    const n = checksOf(g.lab);
    const parts = [`${g.lab}: ${n - g.unproven.length} of ${n} checks shown failing`];
    if (g.unproven.length) parts.push(`unproven: ${g.unproven.join(', ')}`);
    if (g.unknown.length) parts.push(`asserted but not a check of the lab: ${g.unknown.join(', ')}`);
    lines.push(parts.join('; '));
    unproven += g.unproven.length;
    unknown += g.unknown.length;
  }
  const ok = unproven === 0 && unknown === 0;
  lines.push(
    ok
      ? 'PROOFS: every check of every lab is shown failing by a fault test'
      : `PROOFS: ${unproven} check(s) no fault test shows failing, ${unknown} asserted name(s) that are not checks`,
  );
  return { lines, ok };
}
