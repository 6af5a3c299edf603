import type { LabReport } from '../runner.js';
import { formatExpected, formatValue } from './checks.js';

/** --junit FILE: one testsuite per lab, one testcase per check */
export function junitXml(reports: LabReport[]): string {
  const suites = reports.map((r) => {
    const cases = r.checks.map((c) => {
      const body = c.pass
        ? ''
        : `<failure message="${esc(`expected=${formatExpected(c)} actual=${formatValue(c.actual)}`)}"/>`;
      return `    <testcase classname="mqlab.${esc(r.lab)}" name="${esc(c.name)}" time="0">${body}</testcase>`;
    });
    if (r.status === 'error') {
      const type = r.environment ? ` type="environment: ${esc(r.environment.service)}"` : '';
      cases.push(`    <testcase classname="mqlab.${esc(r.lab)}" name="completed" time="0"><error${type} message="${esc(r.error ?? '')}"/></testcase>`);
    }
    if (r.status === 'skipped') cases.push(`    <testcase classname="mqlab.${esc(r.lab)}" name="${esc(r.lab)}" time="0"><skipped message="${esc(r.skipped ?? '')}"/></testcase>`);
    const failures = r.checks.filter((c) => !c.pass).length;
    const errors = r.status === 'error' ? 1 : 0;
    const skipped = r.status === 'skipped' ? 1 : 0;
    return (
      `  <testsuite name="${esc(r.lab)}" tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${(r.timings.totalMs / 1000).toFixed(3)}">\n` +
      cases.join('\n') +
      `\n  </testsuite>`
    );
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="mqlab">\n${suites.join('\n')}\n</testsuites>\n`;
}

function esc(s: string): string {
  return s.replace(/[<>&"']/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[ch]!);
}
