/**
 * The pure part of `npm run proofs` (unproven-checks.ts), read from what the labs declare: every
 * check in meta.checks is in `fails` of at least one broken variant (labs/<lab>/meta.ts), every
 * variant names a check it breaks and only declared ones, and the lab has a fault test file (whose
 * describeFaults, test/faults.ts, runs every declared variant and asserts its FAIL lines).
 */
import type { LabMeta } from '../src/lab/lab.js';

interface ProofGaps {
  lab: string;
  checks: number;
  /** checks no variant lists in `fails`: nothing shows they can fail */
  unproven: string[];
  /** variants whose `fails` is empty, or names a check the lab does not declare */
  badVariants: string[];
  /** the lab has no labs/<lab>/<lab>.faults(.cluster).int.test.ts */
  noFaultTest: boolean;
}

export function gaps(meta: Pick<LabMeta, 'name' | 'checks' | 'faults'>, hasFaultTest: boolean): ProofGaps {
  const variants = Object.entries(meta.faults);
  const listed = new Set(variants.flatMap(([, v]) => v.fails));
  return {
    lab: meta.name,
    checks: meta.checks.length,
    unproven: meta.checks.filter((c) => !listed.has(c)),
    badVariants: variants
      .filter(([, v]) => v.fails.length === 0 || v.fails.some((c) => !meta.checks.includes(c)))
      .map(([name]) => name),
    noFaultTest: !hasFaultTest,
  };
}

/** one line per lab, then the verdict; ok when no lab has a gap */
export function report(all: readonly ProofGaps[]): { lines: string[]; ok: boolean } {
  const lines: string[] = [];
  let bad = 0;
  for (const g of all) {
    const parts = [`${g.lab}: ${g.checks - g.unproven.length} of ${g.checks} checks failed by a declared variant`];
    if (g.unproven.length) parts.push(`unproven: ${g.unproven.join(', ')}`);
    if (g.badVariants.length) parts.push(`variants with no or undeclared checks: ${g.badVariants.join(', ')}`);
    if (g.noFaultTest) parts.push(`no labs/${g.lab}/${g.lab}.faults.int.test.ts`);
    if (g.checks === 0) parts.push('declares no check');
    lines.push(parts.join('; '));
    bad += g.unproven.length + g.badVariants.length + (g.noFaultTest ? 1 : 0) + (g.checks === 0 ? 1 : 0);
  }
  const ok = bad === 0;
  lines.push(
    ok
      ? 'PROOFS: every check of every lab is failed by a declared variant that a fault test runs'
      : `PROOFS: ${bad} gap(s), listed above`,
  );
  return { lines, ok };
}
