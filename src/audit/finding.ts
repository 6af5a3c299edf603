/** The audit's vocabulary: a check (what it looks for, the lab that shows it, the fix) and its findings. */
import type { Snapshot } from './snapshot.js';

export const SEVERITIES = ['error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** is `s` at or above `threshold` (error > warning > info) */
export const atOrAbove = (s: Severity, threshold: Severity) => SEVERITIES.indexOf(s) <= SEVERITIES.indexOf(threshold);

export interface AuditObject {
  kind: 'queue' | 'exchange' | 'consumer' | 'channel';
  /** a queue's or exchange's name, a consumer's tag, a channel's name */
  name: string;
  /** a consumer's queue */
  queue?: string;
}

export interface Finding {
  check: string;
  severity: Severity;
  vhost: string;
  object: AuditObject;
  /** what goes wrong, in one sentence */
  problem: string;
  /** the lab that shows it (`see: mqlab <lab>`) */
  lab: string;
  fix: string;
  /** the values the finding was derived from (as the broker reported them) */
  evidence: Record<string, unknown>;
}

/** what a check needs beyond definitions: live statistics, or a cluster's node list */
export type Need = 'statistics' | 'cluster';

export interface Check {
  id: string;
  severity: Severity;
  /** one line: what the check looks for */
  title: string;
  lab: string;
  fix: string;
  needs: Need[];
  /** the findings, each with the object, its vhost, the problem and the evidence */
  find(s: Snapshot): Omit<Finding, 'check' | 'severity' | 'lab' | 'fix'>[];
  /** a reason to skip the check on this snapshot beyond its needs (e.g. one node: nothing to replicate), or null */
  notApplicable?(s: Snapshot): string | null;
}
