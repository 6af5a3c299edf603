/**
 * --junit FILE: one <testsuite> per lab, one <testcase> per check, in the Jenkins/Ant shape
 * (validated against test/fixtures/junit-10.xsd). A run that ended early (exit 2 or 130) still
 * gets a file: the labs that finished, an <error> testcase saying why it ended, and the labs it
 * never reached as skipped.
 */
import { text } from '../core/text.js';
import os from 'node:os';
import type { LabReport } from './lab-report.js';
import { formatExpected, formatValue, type CheckResult } from './checks.js';
import { renderLab } from './text.js';
import { element, XML_DECLARATION } from './xml.js';
import type { ErrorKind } from '../core/errors.js';

export interface JunitLab {
  report: LabReport;
  startedAt: Date;
}

/** why a run ended before every lab reported: exit 2 (usage, environment), 130 (interrupted) or 1 (internal) */
export interface RunEnd {
  kind: ErrorKind;
  message: string;
  /** the lab that was running, or undefined before any lab started */
  lab?: string | undefined;
  /** labs that never ran */
  notRun?: string[];
  at: Date;
}

const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);
// Ant/surefire form: local-free ISO 8601 without milliseconds (UTC)
const stamp = (d: Date) => d.toISOString().slice(0, 19);

/** the lab broke off: today's `status: 'error'` + message, or an outcome/error object {kind, service, message} */
function labError(r: LabReport): { type: string; message: string } | null {
  if (r.environment)
    return { type: `environment: ${r.environment.service}`, message: r.error ?? r.environment.message };
  const x = r as LabReport & { outcome?: string; error?: unknown };
  if (x.error && typeof x.error === 'object') {
    const e = x.error as { kind?: unknown; service?: unknown; message?: unknown };
    return { type: text(e.kind, 'error'), message: [e.service, e.message].filter(Boolean).map(String).join(': ') };
  }
  if (x.status === 'error' || x.outcome === 'error')
    return { type: 'error', message: typeof x.error === 'string' ? x.error : 'the lab did not complete' };
  return null;
}

function checkCase(lab: string, c: CheckResult, ms: number): string {
  const attrs = { classname: `mqlab.${lab}`, name: c.name, time: seconds(ms) };
  if (c.skipped !== undefined) return element('testcase', attrs, [element('skipped', { message: c.skipped })]);
  if (c.pass) return element('testcase', attrs);
  const expected = formatExpected(c);
  const actual = formatValue(c.actual);
  const failure = element(
    'failure',
    { type: 'assertion', message: `expected=${expected} actual=${actual}` },
    `expected: ${expected}\nactual:   ${actual}\n`,
  );
  return element('testcase', attrs, [failure]);
}

function suite(
  name: string,
  attrs: { timestamp: Date; ms: number },
  cases: string[],
  counts: { failures: number; errors: number; skipped: number },
  out?: string,
) {
  return element(
    'testsuite',
    {
      name,
      tests: cases.length,
      failures: counts.failures,
      errors: counts.errors,
      skipped: counts.skipped,
      time: seconds(attrs.ms),
      timestamp: stamp(attrs.timestamp),
      hostname: os.hostname(),
    },
    out === undefined ? cases : [...cases, element('system-out', {}, out)],
  );
}

function labSuite({ report: r, startedAt }: JunitLab): {
  xml: string;
  tests: number;
  failures: number;
  errors: number;
  ms: number;
} {
  // the checks are observed together, by one experiment: its run time is shared out among them
  const share = r.checks.length ? r.timings.runMs / r.checks.length : 0;
  const cases = r.checks.map((c) => checkCase(r.lab, c, share));
  const err = labError(r);
  if (err)
    cases.push(
      element('testcase', { classname: `mqlab.${r.lab}`, name: 'completed', time: seconds(r.timings.runMs) }, [
        element('error', err, err.message + '\n'),
      ]),
    );
  if (r.status === 'skipped')
    cases.push(
      element('testcase', { classname: `mqlab.${r.lab}`, name: r.lab, time: seconds(r.timings.runMs) }, [
        element('skipped', { message: r.skipped ?? '' }),
      ]),
    );
  const counts = {
    failures: r.checks.filter((c) => !c.pass).length,
    errors: err ? 1 : 0,
    skipped: r.status === 'skipped' ? 1 : r.checks.filter((c) => c.skipped !== undefined).length,
  };
  const out = renderLab(r, false).join('\n') + '\n';
  return {
    xml: suite(r.lab, { timestamp: startedAt, ms: r.timings.totalMs }, cases, counts, out),
    tests: cases.length,
    ...counts,
    ms: r.timings.totalMs,
  };
}

function endSuites(end: RunEnd): { xml: string; tests: number; failures: number; errors: number; ms: number }[] {
  const name = end.lab ?? 'mqlab';
  const error = element('testcase', { classname: `mqlab.${name}`, name: end.kind, time: '0.000' }, [
    element('error', { type: end.kind, message: end.message }, end.message + '\n'),
  ]);
  const suites = [
    {
      xml: suite(name, { timestamp: end.at, ms: 0 }, [error], { failures: 0, errors: 1, skipped: 0 }),
      tests: 1,
      failures: 0,
      errors: 1,
      ms: 0,
    },
  ];
  for (const lab of end.notRun ?? []) {
    const skipped = element('testcase', { classname: `mqlab.${lab}`, name: lab, time: '0.000' }, [
      element('skipped', { message: `not run: the run ended early (${end.kind})` }),
    ]);
    suites.push({
      xml: suite(lab, { timestamp: end.at, ms: 0 }, [skipped], { failures: 0, errors: 0, skipped: 1 }),
      tests: 1,
      failures: 0,
      errors: 0,
      ms: 0,
    });
  }
  return suites;
}

export function junitXml(labs: JunitLab[], end?: RunEnd): string {
  const suites = [...labs.map(labSuite), ...(end ? endSuites(end) : [])];
  const sum = (k: 'tests' | 'failures' | 'errors' | 'ms') => suites.reduce((n, s) => n + s[k], 0);
  const root = element(
    'testsuites',
    { name: 'mqlab', tests: sum('tests'), failures: sum('failures'), errors: sum('errors'), time: seconds(sum('ms')) },
    suites.map((s) => s.xml),
  );
  return XML_DECLARATION + root + '\n';
}
