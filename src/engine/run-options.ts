/** How a run goes (--step, --verbose, --jobs …) and what it tells whom (the CLI's hooks). */
import type { LabReport } from '../report/lab-report.js';
import type { PlannedLab } from '../lab/lab.js';
import type { Config } from '../core/config.js';
import type { Broker } from '../broker/broker.js';
import type { Capabilities } from '../broker/capabilities.js';
import type { Db } from '../db/client.js';
import type { LossWatch } from '../core/lost.js';
import type { RunObserver } from '../page/observer.js';

export interface RunOptions {
  verbose: boolean;
  step: boolean;
  out?: string | undefined;
  /** labs run at once (default 1); above 1 each lab runs in its own namespace (src/engine/jobs.ts) */
  jobs?: number | undefined;
  /** each checkpoint's waiting event carries its CheckpointView (always with --step) */
  views?: boolean;
  /**
   * sample the lab's queue depths over the run (--json, --html, --live show them): a connection of
   * its own and a management request a second; a text run prints none of it, so it does not pay for it
   */
  depths?: boolean;
}

export interface Hooks {
  /** a line for stderr: progress, checkpoints, verbose events */
  stderr: (line: string) => void;
  /** --step: resolve when the user pressed Enter */
  waitForEnter(prompt: string): Promise<void>;
  /** the width of the terminal --step prints in (default 100) */
  width?: number | undefined;
  /** called with each lab's report, in the entries' order, as soon as it and every earlier lab finished */
  onReport?(report: LabReport): void;
  /** --live: each lab's start (its topology as data), every event as it is logged, every queue-depth sample */
  observer?: RunObserver;
  /**
   * just before a lab declares its topology and resets its state, with the namespace it runs in (a
   * class student's run: its row on the board, and whether another run uses that namespace)
   */
  labStarting?(lab: string, namespace: string): Promise<void>;
}

/** one lab's run: the lab with its options, and what the run shares with it */
export interface LabRun<O> extends PlannedLab<O> {
  config: Config;
  /** how this run goes (--step, --verbose, …); `out` is this lab's own folder */
  runOptions: RunOptions;
  hooks: Hooks;
  signal: AbortSignal;
  db: Db;
  capabilities: Capabilities;
  broker: Broker;
  watch: LossWatch;
}
