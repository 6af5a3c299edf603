/**
 * The lab contract. A lab is metadata (`LabMeta`, cheap to import: the CLI lists and describes
 * labs from it) plus code (`Lab`: topology and schema as data, one async run(ctx)), loaded when
 * the lab runs. A lab never talks to commander, never exits the process, never formats colours.
 */
import type { Sql } from 'postgres';
import type { Broker } from '../broker/broker.js';
import type { Management } from '../broker/management.js';
import type { Capabilities } from '../broker/capabilities.js';
import type { EventLog } from '../log/events.js';
import type { Names } from '../core/names.js';
import type { Check } from '../report/checks.js';
import type { Topology } from '../broker/topology.js';
import type { Config } from '../core/config.js';
import type { MessageAtCheckpoint } from '../core/checkpoint-view.js';
import { parseOptions, type AnyOptions, type OptionSpecs } from '../core/options.js';
import type { AnyVariants, Variant, Variants } from './variant.js';

/**
 * One broken variant of a lab (TEST ONLY, MQLAB_FAULT=<lab>:<name>, src/lab/fault.ts): what it breaks and
 * the checks a run of it must print FAIL for. `npm run proofs` reads these: every check of a lab is
 * in `fails` of at least one variant, so no check passes because it cannot fail.
 */
interface FaultSpec<C extends string = string> {
  /** what the variant breaks, one line (e.g. 'the poison message is acked, not dead-lettered') */
  breaks: string;
  /** the checks that catch it: each prints FAIL in a run with this variant (and never all pass) */
  fails: readonly C[];
}

/** a lab's broken variants by name: the `faults` of labs/<lab>/meta.ts */
type FaultCatalogue<F extends string = string, C extends string = string> = {
  readonly [name in F]: FaultSpec<C>;
};

/** the identity, keeping the literal names: `export const faults = defineFaults({ 'ack-poison': { … } })` */
export const defineFaults = <const T extends Record<string, FaultSpec>>(faults: T): T => faults;

/**
 * A lab's meta (labs/<lab>/meta.ts): what the CLI knows about it without loading its code (keeps
 * `mqlab --help` fast). Data only — the code (lab.ts) is typed from it by `labCode`, and the catalogue
 * (labs/catalogue.ts) joins the two.
 */
export interface LabSpec<
  O = AnyOptions,
  C extends string = string,
  F extends string = string,
  K extends string = string,
> {
  name: string;
  /** one line for `mqlab list` and `mqlab --help` */
  title: string;
  /** one line for the lab tables of README.md and docs/README.md (`npm run docs` writes them): what it shows */
  summary: string;
  /** where the experiment comes from in the seeds, for docs/README.md (e.g. "000 `retry`", "003 §2") */
  seed?: string;
  /** what the lab proves, for `mqlab <lab> --help` */
  proves: string;
  /** the waits the experiment itself needs (TTLs, recovery windows) with default options, for the bench */
  floorMs: number;
  /**
   * the part of a run the services themselves take, which the experiment must sit out and no option
   * shortens (a RabbitMQ node's stop and boot, PostgreSQL's stop and start, the rest of a quorum
   * queue's tick before its counters move), read from that run's --json facts; the bench adds it to
   * floorMs run by run. null when the facts lack it.
   */
  serviceWaitMs?: (facts: Record<string, unknown>) => number | null;
  options: OptionSpecs<O>;
  /** rules that involve two options, after each was parsed (throw UsageError) */
  validate?: (options: O) => void;
  /** every check name the lab can return (the runner refuses any other: a lab bug, exit 2) */
  checks: readonly C[];
  /** the lab's broken variants; `fails` name declared checks only */
  faults: FaultCatalogue<F, NoInfer<C>>;
  /**
   * every ctx.checkpoint(name) the lab can call, in run order, each with one human sentence: what is
   * true at that pause (printed at --step pauses and on the live page)
   */
  checkpoints: { readonly [name in K]: string };
  /**
   * what the lab needs beyond one broker and one database (e.g. a cluster mqlab started): the
   * reason it cannot run here, or null. Alone, a lab that cannot run is an environment error
   * (exit 2, that one line); in `mqlab all` it is SKIP with the reason. Load it lazily.
   */
  requires?: (config: Config) => Promise<string | null>;
  /**
   * the lab kills or stops services (a broker node, the database), or changes a node's settings for
   * its run: `mqlab all --jobs N` runs it alone, after every other lab has finished, never beside
   * another lab
   */
  disruptive?: boolean;
  /**
   * false: the lab's own process uses no database (no schema, no reset, no ctx.db; its child processes
   * connect for themselves): a run of such labs only opens no connection to PostgreSQL and needs none
   * up, and its report names no database version. ctx.db then refuses to be used (a lab bug).
   */
  database?: false;
  /**
   * the lab's verdict (or its test's) reads a capability about the delivery count: before the run,
   * the runner measures those on the broker (src/broker/capability-probe.ts, ≈ 0.3 s) instead of
   * deriving them from the version alone; the report's capabilities.basis says which were measured
   */
  measuresCapabilities?: boolean;
  /** subcommands of `mqlab <lab>`; `mqlab <lab>` alone still runs the lab */
  tools?: LabTool<AnyOptions>[];
}

/** a lab's meta with its code's loader, as the catalogue joins them: what the engine runs */
export interface LabMeta<
  O = AnyOptions,
  C extends string = string,
  F extends string = string,
  K extends string = string,
> extends LabSpec<O, C, F, K> {
  load: () => Promise<{ lab: Lab<O, K, C> }>;
  /** its broken variants (TEST ONLY): loaded only when MQLAB_FAULT names the lab (src/engine/variants.ts) */
  variants?: () => Promise<{ variants: AnyVariants }>;
}

/** the identity, for type inference: `export const meta = defineLab({ … })` */
export const defineLab = <O, const C extends string, F extends string, K extends string>(
  meta: LabSpec<O, C, F, K>,
): LabSpec<O, C, F, K> => meta;

/**
 * The lab's code, typed by its meta (the identity at run time): `export const lab = labCode(meta, { … })`.
 * `ctx.checkpoint` takes only the meta's checkpoints, a check only the meta's check names (a
 * misspelt one is a compile error), its variants.ts only the meta's variants (`VariantsOf<typeof meta, Steps>`).
 */
export const labCode = <O, C extends string, F extends string, K extends string>(
  _meta: LabSpec<O, C, F, K>,
  lab: Lab<O, K, NoInfer<C>>,
): Lab<O, K, C> => lab;

/** the check a lab's meta declares, e.g. `(o: Observed): CheckOf<typeof meta>[]` in a lab's verdicts.ts */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- only C is read
export type CheckOf<M> = M extends LabSpec<any, infer C, any, any> ? Check<C> : never;

/** the context of a lab's run, typed by its meta: for the lab's own functions that take `ctx` */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- only O and K are read
export type ContextOf<M> = M extends LabSpec<infer O, any, any, infer K> ? LabContext<O, K> : never;

/**
 * a lab's broken variants of its steps `S`, typed by its meta (labs/<lab>/variants.ts):
 * `export const variants: VariantsOf<typeof meta, RetrySteps> = { 'skip-delay': … }`
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- only F is read
export type VariantsOf<M, S> = M extends LabSpec<any, any, infer F, any> ? Variants<S, F, ContextOf<M>> : never;

/** the options of a lab that takes none */
export type NoOptions = Record<never, never>;

/** a lab's variant names, from its catalogue: `FaultName<typeof faults>` */
export type FaultName<T> = keyof T & string;

/** the lab's options from raw flag strings (absent: default), validated: parsed once, at the boundary */
export function labOptions<O>(meta: LabSpec<O>, given: Partial<Record<keyof O, string>> = {}): O {
  const options = parseOptions(meta.options, given);
  meta.validate?.(options);
  return options;
}

/**
 * One lab of a run: its meta and its options, parsed and defaulted by the CLI. The pair keeps the
 * options typed by the meta that parsed them; the runner hands them to the lab without a lookup.
 */
export interface PlannedLab<O = AnyOptions> {
  readonly entry: LabMeta<O>;
  readonly options: O;
}

/** a lab to run with its options from raw flag strings (none: every option's default) */
/** does a run of these labs need PostgreSQL: one of them uses it in its own process (LabMeta.database) */
export const usesDatabase = (labs: readonly Pick<LabMeta, 'database'>[]): boolean =>
  labs.some((l) => l.database !== false);

export function planLab<O>(entry: LabMeta<O>, given: Partial<Record<keyof O, string>> = {}): PlannedLab<O> {
  return { entry, options: labOptions(entry, given) };
}

/**
 * A lab's own subcommand, `mqlab <lab> <tool>` (e.g. inspect or maintain the lab's tables).
 * Data only: the handler loads when the subcommand runs.
 */
export interface LabTool<O = AnyOptions> {
  name: string;
  /** one line for `mqlab <lab> --help` */
  description: string;
  options: OptionSpecs<O>;
  load: () => Promise<ToolHandler<O>>;
}

/** What a tool gets: the database (with the lab's schema applied), the run's names and config. */
interface ToolContext<O = AnyOptions> {
  lab: string;
  db: Sql;
  names: Names;
  config: Config;
  options: O;
}

/** Lines for stdout (plain text: no colours) and the exit code. */
interface ToolResult {
  lines: string[];
  code: number;
}

export type ToolHandler<O = AnyOptions> = (ctx: ToolContext<O>) => Promise<ToolResult>;

export interface Lab<O = AnyOptions, K extends string = string, C extends string = string> {
  /**
   * exchanges, queues, bindings, policies as data; the engine declares them and purges the queues.
   * `options` matter to labs whose queues depend on them (one delay queue per configured tier).
   */
  topology?: (names: Names, options: O) => Topology;
  /** idempotent DDL, run before every run */
  schema?: (names: Names) => string;
  /** SQL that resets the lab's own rows, run after schema */
  reset?: (names: Names) => string;
  run(ctx: LabContext<O, K>): Promise<LabResult<C>>;
}

export interface LabResult<C extends string = string> {
  /** the lab's summary line(s) (`retry: healthyAttempts=1 …`), printed first, computed from observations */
  lines: string[];
  checks: Check<C>[];
  facts?: Record<string, unknown>;
  /** set when the broker lacks what the lab needs: printed as SKIP with the reason */
  skipped?: string;
}

export interface LabContext<O = AnyOptions, K extends string = string> {
  lab: string;
  names: Names;
  broker: Broker;
  db: Sql;
  /** admin-only management API: policies and queue statistics */
  mgmt: Management;
  caps: Capabilities;
  log: EventLog;
  /** the lab's options, parsed and defaulted by the CLI */
  options: O;
  /** --out DIR, when given: where a lab keeps its processes' output */
  outDir?: string | undefined;
  config: Config;
  /**
   * a teaching pause (declared in meta.checkpoints): in --step mode shows the checkpoint (its
   * description, `message`, the lab's queues) and waits for Enter; always logged as an event
   */
  checkpoint(name: K, detail?: Record<string, unknown>, message?: MessageAtCheckpoint): Promise<void>;
  /** a line of progress on stderr (waits, what is happening); never on stdout */
  progress(message: string): void;
  /** sleep that ends early with Interrupted when the run is interrupted */
  sleep(ms: number): Promise<void>;
  /** settle with p, or fail the experiment after ms naming what it waited for */
  within<T>(p: Promise<T>, ms: number, what: string): Promise<T>;
  signal: AbortSignal;
  /**
   * aborts once the lab's run has settled (returned, thrown, or left behind for a lost service): what
   * the lab started for later and never used ends with it (src/kit/child/child.ts startAhead)
   */
  ended: AbortSignal;
  now(): number;
  /** labs with meta.disruptive only: a planned outage of a service mqlab started (src/engine/outage.ts) */
  services: LabServices;
  /**
   * The steps the lab runs: `correct` itself, or (TEST ONLY: MQLAB_FAULT=<lab>:<name>, src/lab/fault.ts)
   * with the replacements of the broken variants asked for, from the lab's variants.ts (src/lab/variant.ts)
   */
  steps<S extends object>(correct: S): S;
}

/** every lab, in the order `mqlab all` runs them; built outside the engine (labs/registry.ts) */
export type Registry = readonly LabMeta[];

/** one lab before its meta is loaded: what `mqlab --help` and `mqlab list` print, and how to load the rest */
interface CatalogueEntry {
  readonly name: string;
  readonly title: string;
  load(): Promise<LabMeta>;
}

/**
 * A catalogue line: the lab's name and title, its meta's, its code's and its broken variants' loaders.
 * The code must be the code of that meta (`labCode(meta, …)`): a lab.ts typed by another meta does not
 * compile; the variants are the meta's (variants.ts, loaded only when MQLAB_FAULT names the lab).
 */
export interface LabParts<O, C extends string, F extends string, K extends string> {
  meta: () => Promise<{ meta: LabSpec<O, C, F, K> }>;
  code: () => Promise<{ lab: Lab<NoInfer<O>, NoInfer<K>, NoInfer<C>> }>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the steps' type is the lab's own
  variants?: () => Promise<{ variants: { readonly [name in NoInfer<F>]?: Variant<any, any> } }>;
}

export function catalogueEntry<O, C extends string, F extends string, K extends string>(
  name: string,
  title: string,
  parts: LabParts<O, C, F, K>,
): CatalogueEntry {
  return {
    name,
    title,
    load: async () =>
      ({
        ...(await parts.meta()).meta,
        load: parts.code,
        ...(parts.variants ? { variants: parts.variants } : {}),
      }) as LabMeta,
  };
}

/** every lab, in the order `mqlab all` runs them, loaded when a command needs it (labs/catalogue.ts) */
export type Catalogue = readonly CatalogueEntry[];

// ctx.services (labs with meta.disruptive): a planned outage of one service mqlab started (src/engine/outage.ts)

export type OwnService = 'PostgreSQL' | 'RabbitMQ';

/** what stopping one service observed */
export interface Stopped {
  service: OwnService;
  /** the OS process that was stopped (null on docker) */
  pid: number | null;
  /** Date.now() when the stop was asked for, and when the process was seen gone */
  stopAt: number;
  goneAt: number;
  /** a plain TCP connect to the service's port right after: e.g. ECONNREFUSED (null: it connected) */
  refused: string | null;
}

export interface StartedAgain {
  service: OwnService;
  startAt: number;
  /** Date.now() when a probe first connected again as the app */
  readyAt: number;
  pid: number | null;
}

export interface Outage<T> {
  stopped: Stopped;
  started: StartedAgain;
  result: T;
}

export interface LabServices {
  /**
   * Stop `service`, run `whileDown`, start it again (always) and wait until it accepts the app's
   * connections (bounded by readyTimeoutMs, default 120 s). Times are Date.now() milliseconds.
   */
  outage<T>(
    service: OwnService,
    whileDown: (stopped: Stopped) => Promise<T>,
    opts?: { readyTimeoutMs?: number },
  ): Promise<Outage<T>>;
}
