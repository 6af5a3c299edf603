/**
 * `--predict "transientAttempts=1,2,3 shortestRetryGapMs>=500"`: what the class wrote down before the
 * run, held against what the run observed. Each `name=value` (or `name>=n`, `name<=n` for a measured
 * number) is judged by the lab's check of that name (its printed value), else by its fact; a bare PASS
 * or FAIL by the verdict. Spaces inside a value do not count (1, 2, 3 is 1,2,3). A name the lab does
 * not report is kept, judged by nobody.
 */
import type { LabReport } from './lab-report.js';
import { formatValue } from './checks.js';
import { UsageError } from '../core/errors.js';

export interface Guess {
  name: string;
  said: string;
  /** how `said` is held against the actual value: equal (default), at least, at most */
  op?: '>=' | '<=';
}

interface Judged extends Guess {
  /** what the run showed, printed as a PASS/FAIL line prints it; null when the lab reports no such name */
  actual: string | null;
  /** null: nothing to judge it by */
  right: boolean | null;
}

/** the guesses of a --predict text: `name=value` separated by spaces or `;`, or PASS / FAIL */
export function parsePrediction(raw: string): Guess[] {
  const parts = raw
    .trim()
    .split(/\s*;\s*|\s+(?=[A-Za-z_][\w.-]*[<>]?=)|\s+(?=(?:PASS|FAIL)\b)/)
    .filter(Boolean);
  if (!parts.length)
    throw new UsageError('--predict is empty', 'write what you expect, e.g. --predict "transientAttempts=1,2,3"');
  return parts.map((p) => {
    if (/^(PASS|FAIL)$/i.test(p)) return { name: 'verdict', said: p.toUpperCase() };
    const m = /^([A-Za-z_][\w.-]*)\s*(>=|<=|=)\s*(.+)$/.exec(p);
    if (!m || ((m[2] === '>=' || m[2] === '<=') && !Number.isFinite(Number(m[3]))))
      throw new UsageError(
        `--predict takes name=value (a check or fact of the lab), name>=n or name<=n, or PASS/FAIL, got '${p}'`,
        'e.g. --predict "transientAttempts=1,2,3 shortestRetryGapMs>=500"',
      );
    const [, name, op, said] = m as unknown as [string, string, string, string];
    return op === '=' ? { name, said: said.trim() } : { name, said: said.trim(), op: op as '>=' | '<=' };
  });
}

const bare = (s: string) => s.replace(/\s+/g, '');

function holds(g: Guess, actual: string): boolean {
  if (!g.op) return bare(actual) === bare(g.said);
  const n = Number(actual);
  return Number.isFinite(n) && (g.op === '>=' ? n >= Number(g.said) : n <= Number(g.said));
}

/** `name=value`, `name>=n` as written */
export const guessText = (g: Guess) => `${g.name}${g.op ?? '='}${g.said}`;

/** each guess with the run's value and whether it was right */
export function judgePrediction(
  guesses: readonly Guess[],
  report: Pick<LabReport, 'status' | 'checks' | 'facts'>,
): Judged[] {
  return guesses.map((g) => {
    let actual: string | null = null;
    if (g.name === 'verdict')
      actual = report.status === 'passed' ? 'PASS' : report.status === 'failed' ? 'FAIL' : report.status.toUpperCase();
    else {
      const c = report.checks.find((x) => x.name === g.name);
      if (c) actual = formatValue(c.actual);
      else if (Object.hasOwn(report.facts, g.name)) actual = formatValue(report.facts[g.name]);
    }
    return { ...g, actual, right: actual === null ? null : holds(g, actual) };
  });
}

/** one line: `prediction: transientAttempts=1,2,3 ✓; businessRows=3 ✗ (actual 2)` */
export function predictionLine(judged: readonly Judged[]): string {
  return `prediction: ${judged
    .map((j) =>
      j.right === null
        ? `${guessText(j)} (the lab reports no ${j.name})`
        : j.right
          ? `${guessText(j)} ✓`
          : `${guessText(j)} ✗ (actual ${j.actual})`,
    )
    .join('; ')}`;
}
