/** The audit's vocabulary: a check (what it looks for, the lab that shows it, the fix) and its findings. */
import type { Model } from './model.js';
import type { PolicyIndex } from './policies.js';
import type { Snapshot } from './snapshot.js';
import type { Version } from './target.js';

export const SEVERITIES = ['error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** is `s` at or above `threshold` (error > warning > info) */
export const atOrAbove = (s: Severity, threshold: Severity) => SEVERITIES.indexOf(s) <= SEVERITIES.indexOf(threshold);

interface AuditObject {
  kind: 'queue' | 'exchange' | 'consumer' | 'channel' | 'policy' | 'binding' | 'definitions';
  /** a queue's, exchange's or policy's name, a consumer's tag, a channel's name, a binding as "source → destination" */
  name: string;
  /** a consumer's queue */
  queue?: string;
}

export interface Finding {
  check: string;
  severity: Severity;
  vhost: string;
  /** the root cause: the object to change */
  object: AuditObject;
  /** every queue the cause hits, when more than the object (one finding per cause, not per queue) */
  queues?: string[];
  /** what goes wrong, in one sentence */
  problem: string;
  /** the lab that shows it (`see: mqlab <lab>`), or null: docs/audit.md says it */
  lab: string | null;
  fix: string;
  /** the values the finding was derived from (as the broker reported them), with where a setting came from */
  evidence: Record<string, unknown>;
}

/** what a check needs beyond definitions: live statistics, a cluster's node list, a definitions file */
type Need = 'statistics' | 'cluster' | 'file';

/** what a check looks at: the snapshot, the routes worked out once, the policies, the target line */
export interface Context {
  snapshot: Snapshot;
  model: Model;
  policies: PolicyIndex;
  target: Version;
  /** the target names a patch release (4.3.6); "4.3" stands for every 4.3.x (compared as 4.3.0) */
  exact: boolean;
}

/** a finding as a check makes it; a check may lower its severity or give a fix of its own */
export type Draft = Omit<Finding, 'check' | 'severity' | 'lab' | 'fix'> & { severity?: Severity; fix?: string };

export interface Check {
  id: string;
  /** the highest severity its findings have */
  severity: Severity;
  /** one line: what the check looks for */
  title: string;
  lab: string | null;
  fix: string;
  needs: Need[];
  find(c: Context): Draft[];
  /** a reason to skip the check on this snapshot beyond its needs (e.g. one node: nothing to replicate), or null */
  notApplicable?(c: Context): string | null;
}

/** one finding per cause: the drafts of `items` grouped by `key` */
export function grouped<T>(items: readonly T[], key: (t: T) => string): T[][] {
  const m = new Map<string, T[]>();
  for (const t of items) (m.get(key(t)) ?? m.set(key(t), []).get(key(t))!).push(t);
  return [...m.values()];
}
