/**
 * What `mqlab check` prints: the labs' text contract (summary lines, PASS/FAIL per check, RESULT),
 * one ANOMALY line per message id found wrong, --json (docs/check.schema.json) and --junit (one
 * testsuite per group, one testcase per check, the labs' shape).
 */
import { checkLine, resultLine, type CheckResult } from '../report/checks.js';
import { palette } from '../report/text.js';
import { junitXml } from '../report/junit.js';
import type { LabReport } from '../report/lab-report.js';
import { maskUrl } from '../core/urls.js';
import type { Config } from '../core/config.js';
import { VERSION } from '../core/version.js';
import { VOCABULARY } from './anomalies.js';
import type { CheckRun } from './run-check.js';

const CHECK_SCHEMA_VERSION = 1;

const allChecks = (r: CheckRun): CheckResult[] => r.groups.flatMap((g) => g.checks);

export const checkFailed = (r: CheckRun) => allChecks(r).some((c) => !c.pass);

export function renderCheck(r: CheckRun, colour: boolean): string[] {
  const p = palette(colour);
  const ran = r.groups.filter((g) => g.status !== 'skipped').map((g) => g.group);
  const out = [
    `check: consumer=${JSON.stringify(r.command)} seed=${r.seed} effects=${r.effects} broker=${r.broker.product} ${r.broker.version} groups=${ran.join(',') || 'none'}`,
  ];
  for (const g of r.groups) if (g.status !== 'skipped') out.push(g.line);
  for (const g of r.groups) {
    if (g.status === 'skipped') {
      out.push(p.skip(`SKIP ${g.group}: ${g.skipped}`));
      continue;
    }
    for (const c of g.checks) out.push((c.pass ? p.pass : p.fail)(checkLine(c)));
  }
  for (const g of r.groups)
    for (const a of g.anomalies) for (const d of a.detail) out.push(p.fail(`ANOMALY ${a.kind} (${g.group}) ${d}`));
  out.push((checkFailed(r) ? p.fail : p.pass)(resultLine(allChecks(r))));
  const kinds = [...new Set(r.groups.flatMap((g) => g.anomalies.map((a) => a.kind)))];
  if (kinds.length)
    out.push(...kinds.map((k) => p.dim(`  ${k}: ${VOCABULARY[k].means}; mqlab ${VOCABULARY[k].lab} shows the fix`)));
  out.push(p.dim(`seed ${r.seed}: --seed ${r.seed} repeats these kill moments`));
  return out;
}

export function checkJson(r: CheckRun, config: Config) {
  return {
    schemaVersion: CHECK_SCHEMA_VERSION,
    mqlabVersion: VERSION,
    result: checkFailed(r) ? 'failed' : 'passed',
    seed: r.seed,
    consumer: r.command,
    effects: r.effects,
    runId: r.runId,
    broker: r.broker,
    postgres: r.postgres,
    capabilities: r.capabilities,
    namespace: config.namespace || null,
    urls: { amqp: maskUrl(config.amqpUrl), pg: maskUrl(config.pgUrl) },
    groups: r.groups.map((g) => ({
      group: g.group,
      title: g.title,
      status: g.status,
      ...(g.skipped !== undefined ? { skipped: g.skipped } : {}),
      line: g.line,
      checks: g.checks.map((c) => ({ name: c.name, expected: c.expected, actual: c.actual, pass: c.pass })),
      anomalies: g.anomalies.map((a) => ({
        anomaly: a.kind,
        scenario: g.group,
        messageIds: a.messageIds,
        detail: a.detail,
      })),
      facts: g.facts,
      ms: g.ms,
    })),
    anomalies: r.groups.flatMap((g) =>
      g.anomalies.map((a) => ({ anomaly: a.kind, scenario: g.group, messageIds: a.messageIds })),
    ),
    ms: r.ms,
  };
}

/** each group as the labs' report shape, for the JUnit writer */
export function checkJunit(r: CheckRun): string {
  return junitXml(
    r.groups.map((g) => {
      const report: LabReport = {
        lab: `check.${g.group}`,
        title: g.title,
        status: g.status,
        lines: [g.line, ...g.anomalies.flatMap((a) => a.detail.map((d) => `ANOMALY ${a.kind} ${d}`))],
        checks: g.checks,
        facts: g.facts,
        ...(g.skipped !== undefined ? { skipped: g.skipped } : {}),
        timings: { setupMs: 0, runMs: g.ms, totalMs: g.ms },
        events: [],
      };
      return { report, startedAt: g.startedAt };
    }),
  );
}
