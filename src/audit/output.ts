/**
 * The audit's three outputs: text grouped by severity, one --json document (docs/audit.schema.json),
 * and --junit XML (one testcase per check; a finding at or above --fail-on is its failure).
 */
import os from 'node:os';
import { VERSION } from '../core/version.js';
import { element, XML_DECLARATION } from '../report/xml.js';
import type { MqlabError } from '../core/errors.js';
import { atOrAbove, SEVERITIES, type Finding } from './finding.js';
import type { AuditResult } from './run-audit.js';

/** the shape's version (docs/audit.schema.json): raised when a field changes meaning or goes away (2: lab may be null) */
const AUDIT_SCHEMA_VERSION = 2;

export interface Timings {
  readMs: number;
  /** the CPU time of reading (the file's parse, or the requests' answers) */
  readCpuMs: number;
  checkMs: number;
  /** the CPU time of the checks (user + system): what the audit cost, whatever else the machine ran */
  checkCpuMs: number;
  requests: number;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function sourceLine(r: AuditResult): string {
  const s = r.snapshot;
  const from =
    s.source.kind === 'management' ? `management API ${s.source.url}` : `definitions file ${s.source.file} (offline)`;
  const counts = [
    plural(s.queues.length, 'queue'),
    plural(s.exchanges.length, 'exchange'),
    plural(s.bindings.length, 'binding'),
  ];
  if (s.consumers) counts.push(plural(s.consumers.length, 'consumer'));
  if (s.channels) counts.push(plural(s.channels.length, 'channel'));
  if (s.nodes) counts.push(plural(s.nodes.length, 'node'));
  if (s.policies) counts.push(`${s.policies.length} polic${s.policies.length === 1 ? 'y' : 'ies'}`);
  const vhosts = s.vhosts.length === 1 ? `vhost ${s.vhosts[0]}` : plural(s.vhosts.length, 'vhost');
  const version = s.broker ? `${s.broker.product} ${s.broker.version}` : 'RabbitMQ (the file names no version)';
  const judged = `judged for ${r.target.version}${r.target.from === 'option' ? ' (--target-version)' : r.target.from === 'default' ? ' (no version known: --target-version to choose)' : ''}`;
  return `audit: ${version} from the ${from}; ${vhosts}: ${counts.join(', ')}; ${judged}`;
}

/** a definitions file with nothing the checks read: a line saying so (exit 0) */
export function nothingLine(r: AuditResult): string | null {
  const s = r.snapshot;
  if (
    !s.file ||
    s.queues.length ||
    s.exchanges.length ||
    s.bindings.length ||
    s.policies?.length ||
    s.file.invalid.length
  )
    return null;
  const others = s.file.lists.filter((l) => !['queues', 'exchanges', 'bindings', 'policies'].includes(l));
  return `nothing to check: no queues, exchanges, bindings or policies${others.length ? ` (it holds ${others.join(', ')})` : ''}`;
}

const seeText = (f: { lab: string | null; check: string }) => (f.lab ? `mqlab ${f.lab}` : `docs/audit.md#${f.check}`);
const queuesText = (f: Finding) =>
  f.queues && f.queues.length > 1
    ? `    queues (${f.queues.length}): ${f.queues.slice(0, 10).join(', ')}${f.queues.length > 10 ? ', …' : ''}`
    : null;

const objectText = (f: Finding) =>
  f.object.kind === 'consumer'
    ? `consumer ${f.object.name} on queue ${f.object.queue}`
    : `${f.object.kind} ${f.object.name}`;

export function renderText(r: AuditResult): string[] {
  const out = [sourceLine(r)];
  const nothing = nothingLine(r);
  if (nothing) out.push(nothing);
  const heading = { error: 'errors', warning: 'warnings', info: 'info' } as const;
  for (const sev of SEVERITIES) {
    const fs = r.findings.filter((f) => f.severity === sev);
    if (!fs.length) continue;
    out.push('', `${heading[sev].toUpperCase()} (${fs.length})`);
    for (const f of fs) {
      out.push(`  ${f.check}: vhost ${f.vhost}, ${objectText(f)}`, `    ${f.problem}`);
      const queues = queuesText(f);
      if (queues) out.push(queues);
      out.push(`    see: ${seeText(f)}`, `    fix: ${f.fix}`);
    }
  }
  const skipped = r.checks.filter((c) => c.status === 'skipped');
  if (skipped.length) {
    out.push('');
    // one line per reason: a file skips the nine live checks for one reason
    const reasons = new Map<string, string[]>();
    for (const c of skipped) reasons.set(c.skipped!, [...(reasons.get(c.skipped!) ?? []), c.id]);
    for (const [why, ids] of reasons) out.push(`SKIP ${ids.join(', ')}: ${why}`);
  }
  out.push('', resultLine(r));
  return out;
}

function resultLine(r: AuditResult): string {
  const n = (sev: string) => r.findings.filter((f) => f.severity === sev).length;
  const ran = r.checks.filter((c) => c.status !== 'skipped').length;
  const verdict =
    r.failOn === 'never'
      ? 'not gated (--fail-on never)'
      : r.failed
        ? `FAILED (--fail-on ${r.failOn})`
        : `passed (--fail-on ${r.failOn})`;
  return `RESULT: ${ran} of ${r.checks.length} checks ran, ${plural(r.findings.length, 'finding')} (${n('error')} error, ${n('warning')} warning, ${n('info')} info): ${verdict}`;
}

export function auditJson(r: AuditResult, t: Timings) {
  const s = r.snapshot;
  const count = (sev: string) => r.findings.filter((f) => f.severity === sev).length;
  return {
    schemaVersion: AUDIT_SCHEMA_VERSION,
    mqlabVersion: VERSION,
    result: r.failed ? 'failed' : 'passed',
    failOn: r.failOn,
    source: s.source,
    broker: s.broker,
    target: r.target,
    vhosts: s.vhosts,
    ...(s.file
      ? {
          definitions: {
            shape: s.file.shape,
            vhost: s.file.vhostName,
            lists: s.file.lists,
            nothingToCheck: nothingLine(r) !== null,
          },
        }
      : {}),
    objects: {
      queues: s.queues.length,
      exchanges: s.exchanges.length,
      bindings: s.bindings.length,
      policies: s.policies?.length ?? null,
      consumers: s.consumers?.length ?? null,
      channels: s.channels?.length ?? null,
      nodes: s.nodes,
    },
    summary: {
      error: count('error'),
      warning: count('warning'),
      info: count('info'),
      skippedChecks: r.checks.filter((c) => c.status === 'skipped').length,
    },
    checks: r.checks.map((c) => ({
      id: c.id,
      severity: c.severity,
      title: c.title,
      lab: c.lab,
      fix: c.fix,
      status: c.status,
      ...(c.skipped ? { skipped: c.skipped } : {}),
      findings: c.findings.length,
    })),
    findings: r.findings,
    timings: {
      readMs: Math.round(t.readMs),
      readCpuMs: Math.round(t.readCpuMs),
      checkMs: Math.round(t.checkMs),
      checkCpuMs: Math.round(t.checkCpuMs),
      requests: t.requests,
    },
  };
}

export function auditJunit(r: AuditResult, t: Timings, at = new Date()): string {
  const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);
  const share = r.checks.length ? t.checkMs / r.checks.length : 0;
  let failures = 0;
  let skipped = 0;
  const cases = r.checks.map((c) => {
    const attrs = { classname: 'mqlab.audit', name: c.id, time: seconds(share) };
    if (c.status === 'skipped') {
      skipped += 1;
      return element('testcase', attrs, [element('skipped', { message: c.skipped ?? '' })]);
    }
    const gating = c.findings.filter((f) => r.failOn !== 'never' && atOrAbove(f.severity, r.failOn));
    const lines = c.findings.map(
      (f) =>
        `${f.severity} vhost ${f.vhost}, ${objectText(f)}: ${f.problem}${f.queues && f.queues.length > 1 ? `\n  queues: ${f.queues.join(', ')}` : ''}\n  see: ${seeText(f)}\n  fix: ${f.fix}`,
    );
    if (!gating.length)
      return element('testcase', attrs, lines.length ? [element('system-out', {}, lines.join('\n') + '\n')] : []);
    failures += 1;
    const first = gating[0]!;
    const message = `${plural(c.findings.length, 'finding')}: vhost ${first.vhost}, ${objectText(first)}: ${first.problem}`;
    return element('testcase', attrs, [element('failure', { type: c.severity, message }, lines.join('\n') + '\n')]);
  });
  const total = t.readMs + t.checkMs;
  const suite = element(
    'testsuite',
    {
      name: 'mqlab audit',
      tests: cases.length,
      failures,
      errors: 0,
      skipped,
      time: seconds(total),
      timestamp: at.toISOString().slice(0, 19),
      hostname: os.hostname(),
    },
    [...cases, element('system-out', {}, renderText(r).join('\n') + '\n')],
  );
  return (
    XML_DECLARATION +
    element('testsuites', { name: 'mqlab audit', tests: cases.length, failures, errors: 0, time: seconds(total) }, [
      suite,
    ]) +
    '\n'
  );
}

/** --json after a usage or environment error (exit 2): what went wrong, in the same document family */
export function auditErrorJson(err: MqlabError) {
  const e = err as MqlabError & { hint?: string };
  return {
    schemaVersion: AUDIT_SCHEMA_VERSION,
    mqlabVersion: VERSION,
    result: 'error',
    error: { kind: e.kind, message: e.message, ...(e.hint ? { hint: e.hint } : {}) },
  };
}
