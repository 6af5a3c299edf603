/** The text output contract: summary line(s), PASS/FAIL per check, RESULT; colours as src/report/colour.ts decides. */
import type { LabReport } from './lab-report.js';
import { checkLine, resultLine } from './checks.js';

export { useColour } from './colour.js';

/**
 * The five styles the output uses, as chalk applies them at its level 1 (16 colours), byte for byte
 * (src/report/report.test.ts holds them to chalk's): a style closed inside the text is opened
 * again, and a line break closes and reopens it. chalk cost a run about 13 ms of start-up.
 */
export function palette(colour: boolean) {
  const style = (open: number, close: number) => {
    if (!colour) return (s: string) => s;
    const [on, off] = [`\u001b[${open}m`, `\u001b[${close}m`];
    return (s: string) => (s ? on + s.replaceAll(off, off + on).replace(/\r?\n/g, (lf) => off + lf + on) + off : s);
  };
  return { pass: style(32, 39), fail: style(31, 39), skip: style(33, 39), dim: style(2, 22), bold: style(1, 22) };
}

/** a run of a deliberately broken variant is marked as one, after the summary line */
export const faultLine = (r: Pick<LabReport, 'lab' | 'faults'>) =>
  `BROKEN VARIANT ${r.lab}: ${(r.faults ?? []).join(', ')} (MQLAB_FAULT): not the correct experiment`;

export function renderLab(r: LabReport, colour: boolean): string[] {
  const p = palette(colour);
  const out = [...r.lines];
  if (r.faults?.length) out.push(p.skip(faultLine(r)));
  if (r.status === 'skipped') {
    out.push(p.skip(`SKIP ${r.lab}: ${r.skipped}`));
    return out;
  }
  if (r.environment) {
    // not a verdict on the experiment: the cause goes to stderr (main), once
    out.push(p.fail(`ERROR ${r.lab}: stopped, ${r.environment.service} was lost or refused (not a failed experiment)`));
    return out;
  }
  for (const c of r.checks) out.push((c.skipped !== undefined ? p.skip : c.pass ? p.pass : p.fail)(checkLine(c)));
  if (r.status === 'error') {
    out.push(p.fail(`FAIL ${r.lab}: the experiment did not complete: ${r.error}`));
    out.push(p.fail('RESULT: the lab did not complete'));
  } else {
    out.push((r.status === 'passed' ? p.pass : p.fail)(resultLine(r.checks)));
  }
  return out;
}

/** `mqlab all`: one row per lab, then the verdict with the run's wall time (with --jobs, less than the rows' sum) */
export function renderSummary(reports: LabReport[], colour: boolean, wallMs: number): string[] {
  const p = palette(colour);
  const w = Math.max(3, ...reports.map((r) => r.lab.length));
  const rows = [`${'lab'.padEnd(w)}  result   checks  wall`];
  for (const r of reports) {
    const passed = r.checks.filter((c) => c.pass && c.skipped === undefined).length;
    const result = r.status.toUpperCase().padEnd(7);
    const paint = r.status === 'passed' ? p.pass : r.status === 'skipped' ? p.skip : p.fail;
    rows.push(
      `${r.lab.padEnd(w)}  ${paint(result)}  ${`${passed}/${r.checks.length}`.padStart(6)}  ${(r.timings.totalMs / 1000).toFixed(2)} s`,
    );
  }
  const failed = reports.filter((r) => r.status === 'failed' || r.status === 'error').length;
  const skipped = reports.filter((r) => r.status === 'skipped').length;
  const skipNote = skipped ? `, ${skipped} skipped` : '';
  const wall = `${(wallMs / 1000).toFixed(1)} s`;
  rows.push(
    failed === 0
      ? p.pass(`ALL: ${reports.length} lab(s) in ${wall}, none failed${skipNote}`)
      : p.fail(`ALL: ${failed} of ${reports.length} lab(s) FAILED in ${wall}${skipNote}`),
  );
  return rows;
}

export function exitCodeOf(reports: LabReport[]): number {
  return reports.some((r) => r.status === 'failed' || r.status === 'error') ? 1 : 0;
}
