/**
 * A check is { name, expected, actual }; the engine decides pass/fail and prints.
 * `compare` covers the few claims that are bounds rather than equalities.
 */
import { text } from '../core/text.js';
/** a claim of a lab; N, its name, is one of the lab's declared checks (LabSpec.checks) */
export interface Check<N extends string = string> {
  name: N;
  expected: unknown;
  actual: unknown;
  compare?: 'eq' | 'atLeast' | 'atMost';
  /**
   * set when this run could not observe the claim (e.g. statistics that refresh slower than the
   * experiment lasts): printed as `SKIP name: reason`, never as a pass, and it fails nothing
   */
  skipped?: string;
}

export interface CheckResult extends Check {
  pass: boolean;
}

export const check = <N extends string>(name: N, expected: unknown, actual: unknown): Check<N> => ({
  name,
  expected,
  actual,
});
export const checkAtLeast = <N extends string>(name: N, min: number, actual: number | null): Check<N> => ({
  name,
  expected: min,
  actual,
  compare: 'atLeast',
});
export const checkAtMost = <N extends string>(name: N, max: number, actual: number | null): Check<N> => ({
  name,
  expected: max,
  actual,
  compare: 'atMost',
});

/** a claim this run could not observe, with the reason (printed SKIP, counted neither passed nor failed) */
export const skipCheck = <N extends string>(name: N, expected: unknown, reason: string): Check<N> => ({
  name,
  expected,
  actual: null,
  skipped: reason,
});

export function evaluate(c: Check): CheckResult {
  if (c.skipped !== undefined) return { ...c, pass: true };
  let pass: boolean;
  switch (c.compare ?? 'eq') {
    case 'atLeast':
      pass = typeof c.actual === 'number' && c.actual >= Number(c.expected);
      break;
    case 'atMost':
      pass = typeof c.actual === 'number' && c.actual <= Number(c.expected);
      break;
    default:
      pass = formatValue(c.expected) === formatValue(c.actual) && typeof c.expected === typeof c.actual;
  }
  return { ...c, pass };
}

/** a value on a PASS/FAIL line: arrays as 1,2,3; everything else as its string */
export function formatValue(v: unknown): string {
  if (Array.isArray(v)) return v.map(formatValue).join(',');
  if (v === null || v === undefined) return String(v);
  if (typeof v === 'object') return JSON.stringify(v);
  return text(v);
}

export function formatExpected(c: Check): string {
  const v = formatValue(c.expected);
  if (c.compare === 'atLeast') return `>=${v}`;
  if (c.compare === 'atMost') return `<=${v}`;
  return v;
}

export function checkLine(r: CheckResult): string {
  if (r.skipped !== undefined) return `SKIP ${r.name}: ${r.skipped}`;
  return r.pass
    ? `PASS ${r.name}: ${formatValue(r.actual)}`
    : `FAIL ${r.name}: expected=${formatExpected(r)} actual=${formatValue(r.actual)}`;
}

export function resultLine(results: CheckResult[]): string {
  const failed = results.filter((r) => !r.pass).length;
  return failed === 0 ? 'RESULT: all assertions passed' : `RESULT: ${failed} assertion(s) FAILED`;
}

/** a list as Java's List.toString prints it, [1, 2, 3]: the form of lists on summary lines */
export function javaList(v: unknown[]): string {
  return `[${v.map(formatValue).join(', ')}]`;
}

/** a lab's summary line: `lab: key=value key=value …`, values as formatValue writes them */
export function summaryLine(lab: string, fields: Record<string, unknown>): string {
  return `${lab}: ${Object.entries(fields)
    .map(([k, v]) => `${k}=${formatValue(v)}`)
    .join(' ')}`;
}
