/** A check group: a scenario turned on the consumer, the anomalies it is built to expose, and where it can run. */
import type { AnomalyKind } from '../anomalies.js';
import type { GroupName } from '../group-names.js';
import type { RunEnv, Scenario } from '../scenario.js';

export interface Group {
  name: GroupName;
  /** one line: what the group does to the consumer */
  title: string;
  /**
   * the anomalies this group is built to expose: each prints a check line (PASS or FAIL), and each is
   * shown failing by a broken reference consumer (examples/consumers/catalogue.ts); another anomaly
   * found here prints a FAIL line of its own
   */
  exposes: readonly AnomalyKind[];
  /** why it cannot run against these services (null: it can) */
  cannotRun?(env: RunEnv): Promise<string | null>;
  /** it stops a service or changes a broker-wide setting: the set of services is held alone meanwhile */
  exclusive?(env: RunEnv): boolean;
  /** before the queues and the consumer: a setting for this group, and how to set it back after */
  before?(env: RunEnv): Promise<(() => Promise<void>) | undefined>;
  /** more arguments of its work queue */
  queueArgs?(env: RunEnv): Record<string, unknown>;
  /** after the consumer consumes: publish, inject, settle; facts and summary fields into s.facts */
  run(s: Scenario): Promise<void>;
}
