/** What a run produced, lab by lab: the runner fills it in, the text/JSON/JUnit/out-file reports read it. */
import type { Capabilities } from '../broker/capabilities.js';
import type { LabEvent } from '../log/events.js';
import type { CheckResult } from './checks.js';
import type { DepthSeries } from '../broker/depth-sampler.js';
import type { Topology } from '../broker/topology.js';

type LabStatus = 'passed' | 'failed' | 'skipped' | 'error';

export interface LabReport {
  lab: string;
  title: string;
  status: LabStatus;
  lines: string[];
  checks: CheckResult[];
  facts: Record<string, unknown>;
  skipped?: string;
  error?: string;
  /** set when a service was lost or refused during the lab: an environment error, not a failure */
  environment?: { service: string; url: string; message: string };
  timings: { setupMs: number; runMs: number; totalMs: number };
  /** wall-clock ISO times the lab's run (after setup) started and ended: the timeline's axis */
  window?: { start: string; end: string };
  events: LabEvent[];
  /** the lab's queues' ready messages, sampled during the run */
  depths?: DepthSeries;
  /** the exchanges, queues and bindings the engine declared for the lab (the bench draws them) */
  topology?: Topology;
  /** MQLAB_FAULT: the deliberately broken variants this run was made with (a test's, or a class's "predict the FAIL"); absent for the correct experiment */
  faults?: string[];
  /** the lab's own namespace in a --jobs run (absent: the run's namespace) */
  namespace?: string;
}

export interface SessionInfo {
  broker: { product: string; version: string };
  /** server_version of the database; null when no lab of the run uses one (LabMeta.database) */
  postgres: string | null;
  capabilities: Capabilities;
}
