/**
 * What the runner tells a watcher of the run (--live) while it happens: a lab starts (with its
 * topology as data), an event is logged, a queue-depth sample is taken. The runner knows nothing
 * more about the page; the live feed (src/page/feed.ts) turns these into what the page shows.
 */
import type { Topology } from '../broker/topology.js';
import type { DepthSample } from '../broker/depth-sampler.js';
import type { LabEvent } from '../log/events.js';

export interface LabStart {
  lab: string;
  title: string;
  topology: Topology | null;
  /** the checkpoints the lab declares, in order: names, or names with a one-line description */
  checkpoints: readonly (string | { name: string; description?: string })[];
  /** MQLAB_FAULT variants this run was made with (empty: the correct experiment) */
  faults: string[];
}

export interface RunObserver {
  labStarted(info: LabStart): void;
  event(lab: string, e: LabEvent): void;
  sample(lab: string, queues: string[], s: DepthSample): void;
}
