/** Run every check on a snapshot: each passes, fails with its findings, or is skipped with the reason. */
import { CHECKS } from './checks.js';
import { atOrAbove, type Check, type Finding, type Severity } from './finding.js';
import type { Snapshot } from './snapshot.js';

export interface CheckOutcome {
  id: string;
  severity: Severity;
  title: string;
  lab: string;
  fix: string;
  status: 'passed' | 'failed' | 'skipped';
  /** why it did not run on this source */
  skipped?: string;
  findings: Finding[];
}

export interface AuditResult {
  snapshot: Snapshot;
  checks: CheckOutcome[];
  findings: Finding[];
  failOn: Severity | 'never';
  /** any finding at or above failOn */
  failed: boolean;
}

function skipReason(c: Check, s: Snapshot): string | null {
  if (c.needs.includes('statistics') && s.consumers === null)
    return 'needs live statistics (a definitions file has none): run against the management API';
  if (c.needs.includes('cluster') && s.nodes === null)
    return 'needs the cluster’s nodes (a definitions file has none): run against the management API';
  return c.notApplicable?.(s) ?? null;
}

export function audit(s: Snapshot, failOn: Severity | 'never', checks: readonly Check[] = CHECKS): AuditResult {
  const outcomes = checks.map((c): CheckOutcome => {
    const base = { id: c.id, severity: c.severity, title: c.title, lab: c.lab, fix: c.fix };
    const skipped = skipReason(c, s);
    if (skipped) return { ...base, status: 'skipped', skipped, findings: [] };
    const findings = c.find(s).map((f) => ({ check: c.id, severity: c.severity, lab: c.lab, fix: c.fix, ...f }));
    return { ...base, status: findings.length ? 'failed' : 'passed', findings };
  });
  const findings = outcomes.flatMap((o) => o.findings);
  return {
    snapshot: s,
    checks: outcomes,
    findings,
    failOn,
    failed: failOn !== 'never' && findings.some((f) => atOrAbove(f.severity, failOn)),
  };
}
