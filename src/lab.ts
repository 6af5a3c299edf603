/**
 * The lab contract. A lab is data (topology, schema) plus one async run(ctx).
 * A lab never talks to commander, never exits the process, never formats colours.
 */
import type { Sql } from 'postgres';
import type { Broker } from './broker/broker.js';
import type { Management } from './broker/management.js';
import type { Capabilities } from './broker/capabilities.js';
import type { EventLog } from './log/events.js';
import type { Names } from './names.js';
import type { Check } from './report/checks.js';
import type { Topology } from './broker/topology.js';
import type { Config } from './config.js';

export interface LabOption {
  /** commander flag syntax, e.g. '--recover-timeout <seconds>' */
  flags: string;
  description: string;
  default?: string | number | boolean;
  /** parse the raw string (throw UsageError on bad input) */
  parse?: (raw: string) => unknown;
  /** the option must be given (commander reports it missing, exit 2) */
  required?: boolean;
}

/**
 * A lab's own subcommand, `mqlab <lab> <tool>` (e.g. inspect or maintain the lab's tables).
 * Data only: the handler loads when the subcommand runs.
 */
export interface LabTool {
  name: string;
  /** one line for `mqlab <lab> --help` */
  description: string;
  options?: LabOption[];
  load: () => Promise<ToolHandler>;
}

/** What a tool gets: the database (with the lab's schema applied), the run's names and config. */
export interface ToolContext {
  lab: string;
  db: Sql;
  names: Names;
  config: Config;
  /** the tool's options after parsing, keyed by camelCase name */
  options: Record<string, unknown>;
}

/** Lines for stdout (plain text: no colours) and the exit code. */
export interface ToolResult {
  lines: string[];
  code: number;
}

export type ToolHandler = (ctx: ToolContext) => Promise<ToolResult>;

/** What the registry knows about a lab without loading its code (keeps `mqlab --help` fast). */
export interface LabEntry {
  name: string;
  /** one line for `mqlab list` and `mqlab --help` */
  title: string;
  /** what the lab proves, for `mqlab <lab> --help` */
  proves: string;
  options?: LabOption[];
  /** the waits the experiment itself needs (TTLs, recovery windows), for the bench */
  floorMs: number;
  load: () => Promise<{ lab: Lab }>;
  /** subcommands of `mqlab <lab>`; `mqlab <lab>` alone still runs the lab */
  tools?: LabTool[];
}

export interface Lab {
  /**
   * exchanges, queues, bindings, policies as data; the engine declares them and purges the queues.
   * `options` are the lab's parsed options (registry defaults where not given),
   * for labs whose queues depend on them (one delay queue per configured tier).
   */
  topology?: (names: Names, options: Record<string, unknown>) => Topology;
  /** idempotent DDL, run before every run */
  schema?: (names: Names) => string;
  /** SQL that resets the lab's own rows, run after schema */
  reset?: (names: Names) => string;
  run(ctx: LabContext): Promise<LabResult>;
}

export interface LabResult {
  /** the seed's summary line(s), computed from observations */
  lines: string[];
  checks: Check[];
  facts?: Record<string, unknown>;
  /** set when the broker lacks what the lab needs: printed as SKIP with the reason */
  skipped?: string;
}

export interface LabContext {
  lab: string;
  names: Names;
  broker: Broker;
  db: Sql;
  /** admin-only management API: policies and queue statistics */
  mgmt: Management;
  caps: Capabilities;
  log: EventLog;
  /** lab options after parsing, keyed by camelCase name */
  options: Record<string, unknown>;
  /** --out DIR, when given: where a lab keeps its processes' output */
  outDir?: string;
  config: Config;
  /** a teaching pause: in --step mode waits for Enter; always logged as an event */
  checkpoint(name: string, detail?: Record<string, unknown>): Promise<void>;
  /** a line of progress on stderr (waits, what is happening); never on stdout */
  progress(message: string): void;
  /** sleep that ends early with Interrupted when the run is interrupted */
  sleep(ms: number): Promise<void>;
  /** settle with p, or fail the experiment after ms naming what it waited for */
  within<T>(p: Promise<T>, ms: number, what: string): Promise<T>;
  signal: AbortSignal;
  now(): number;
  /** a test-only broken variant is on (MQLAB_FAULT=<lab>:<fault>, read by src/fault.ts) */
  fault(name: string): boolean;
}
