/**
 * Run every check on a snapshot: the policies and the dead-letter routes are worked out once (with a
 * turn of the event loop every few thousand steps: Ctrl-C is heard), then each check passes, fails
 * with its findings, or is skipped with the reason.
 */
import { CHECKS } from './checks.js';
import { atOrAbove, SEVERITIES, type Check, type Context, type Finding, type Severity } from './finding.js';
import { buildModel } from './model.js';
import { applyPolicies, PolicyIndex } from './policies.js';
import type { Snapshot } from './snapshot.js';
import { versionText, type Version } from './target.js';
import { noTicks, type Ticker } from './ticker.js';

interface CheckOutcome {
  id: string;
  severity: Severity;
  title: string;
  lab: string | null;
  fix: string;
  status: 'passed' | 'failed' | 'skipped';
  /** why it did not run on this source */
  skipped?: string;
  findings: Finding[];
}

export interface AuditResult {
  snapshot: Snapshot;
  /** the line judged for ("4.3.0") and where it came from */
  target: { version: string; from: 'option' | 'source' | 'default' };
  checks: CheckOutcome[];
  findings: Finding[];
  failOn: Severity | 'never';
  /** any finding at or above failOn */
  failed: boolean;
}

interface AuditOptions {
  failOn: Severity | 'never';
  target: Version;
  /** the target names a patch release */
  exact: boolean;
  targetFrom: AuditResult['target']['from'];
  tick?: Ticker;
  checks?: readonly Check[];
}

function skipReason(c: Check, ctx: Context): string | null {
  const s = ctx.snapshot;
  if (c.needs.includes('statistics') && s.consumers === null)
    return 'needs live statistics (a definitions file has none): run against the management API';
  if (c.needs.includes('cluster') && s.nodes === null)
    return 'needs the cluster’s nodes (a definitions file has none): run against the management API';
  return c.notApplicable?.(ctx) ?? null;
}

export async function audit(s: Snapshot, o: AuditOptions): Promise<AuditResult> {
  const tick = o.tick ?? noTicks;
  const policies = new PolicyIndex(s.policies ?? []);
  const outcomes = await applyPolicies(s, policies, o.target, tick);
  const model = { ...(await buildModel(s, o.target, tick)), outcomes };
  const ctx: Context = { snapshot: s, model, policies, target: o.target, exact: o.exact };
  const checks = (o.checks ?? CHECKS).map((c): CheckOutcome => {
    const base = { id: c.id, severity: c.severity, title: c.title, lab: c.lab, fix: c.fix };
    const skipped = skipReason(c, ctx);
    if (skipped) return { ...base, status: 'skipped', skipped, findings: [] };
    const findings = c.find(ctx).map(({ severity, fix, ...f }): Finding => ({
      check: c.id,
      // a check may lower a finding's severity, never raise it above its own
      severity: severity && SEVERITIES.indexOf(severity) > SEVERITIES.indexOf(c.severity) ? severity : c.severity,
      lab: c.lab,
      fix: fix ?? c.fix,
      ...f,
    }));
    return { ...base, status: findings.length ? 'failed' : 'passed', findings };
  });
  const findings = checks.flatMap((c) => c.findings);
  return {
    snapshot: s,
    target: { version: o.exact ? versionText(o.target) : o.target.slice(0, 2).join('.'), from: o.targetFrom },
    checks,
    findings,
    failOn: o.failOn,
    failed: o.failOn !== 'never' && findings.some((f) => atOrAbove(f.severity, o.failOn as Severity)),
  };
}
