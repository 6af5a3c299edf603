/**
 * The engine: for each lab, connect, declare its topology and schema, reset its own state,
 * run it, evaluate its checks. Knows no lab's queue names.
 */
import { setMaxListeners } from 'node:events';
import { usesDatabase, type Lab, type LabContext, type LabMeta, type LabResult, type PlannedLab } from '../lab/lab.js';
import type { Config } from '../core/config.js';
import { Broker } from '../broker/broker.js';
import { Management } from '../broker/management.js';
import { capabilities, type Capabilities } from '../broker/capabilities.js';
import { declareTopology, purgeTopology, type Topology } from '../broker/topology.js';
import { openDb, type Db } from '../db/client.js';
import { takeBroker, takeDb } from './early-start.js';
import { EventLog } from '../log/events.js';
import { namesFor, type Names } from '../core/names.js';
import { evaluate } from '../report/checks.js';
import type { LabReport, SessionInfo } from '../report/lab-report.js';
import { EnvError, Interrupted, LabError, UsageError } from '../core/errors.js';
import { maskUrl } from '../core/urls.js';
import { sleep, within } from '../core/time.js';
import { labOutDir, writeAssertOut } from '../report/out-files.js';
import { FAULT_ENV, faultsFor } from '../lab/fault.js';
import { sampleDepths, samplerConnection } from '../broker/depth-sampler.js';
import { LOST_HINT, LossWatch, ServiceLost, isConnectionLoss, isServerGone } from '../core/lost.js';
import { dbLossProbe } from '../db/client.js';
import { runInOrder } from './in-order.js';
import { dbPoolSize, disruptiveLast, jobConfig, LabOutput, longestFirst } from './jobs.js';
import { labServices } from './outage.js';
import { expectedMs, recordedTimes, recordTimes } from './lab-times.js';
import type { CheckpointView, MessageAtCheckpoint } from '../core/checkpoint-view.js';
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
}

/** what runLabs is asked to do: which labs, against which services, how, told to whom, until when */
export interface RunRequest {
  /** the labs, each with the options it was planned with (src/lab/lab.ts planLab), in the order they report */
  plan: readonly PlannedLab[];
  config: Config;
  options: RunOptions;
  hooks: Hooks;
  /** aborts the run (Ctrl-C): the labs stop and runLabs rejects with Interrupted */
  signal: AbortSignal;
}

/** what a run gave: the services it ran on, one report per lab, and the first service it lost (the run ends with exit 2) */
export interface RunResult {
  session: SessionInfo;
  reports: LabReport[];
  lost?: EnvError;
}

/** run the plan's labs; each lab's report reaches hooks.onReport as soon as it and every earlier lab finished */
export async function runLabs(request: RunRequest): Promise<RunResult> {
  const { plan, config, options: opts, hooks, signal } = request;
  const jobs = opts.jobs ?? 1;
  const entries = plan.map((p) => p.entry);
  // a broken variant the lab does not declare is refused before anything runs (exit 2)
  for (const entry of entries) faultsFor(entry);
  if (jobs > 1 && opts.step)
    throw new UsageError(
      '--step pauses one lab at a time, so it cannot run with --jobs',
      'leave out --jobs (or use --jobs 1) to step through the labs',
    );
  // every lab's config first: a namespace too long for --jobs is a usage error before anything runs
  const configs = entries.map((_, i) => (jobs > 1 ? jobConfig(config, i) : config));
  // Connect to both services first: an environment problem is reported before any lab starts.
  const watch = new LossWatch();
  let dbHandle: Db | undefined;
  let ending = false;
  const onDbClose = dbLossProbe(
    () => dbHandle,
    () => ending || watch.first !== null,
    (cause, since) => watch.report(new ServiceLost('PostgreSQL', config.pgUrl, cause), since),
  );
  // begun by the CLI while the engine loaded (src/engine/early-start.ts) when it could, else here; the
  // database only when a lab of the run uses one (LabMeta.database)
  const usesDb = usesDatabase(entries);
  const [first, pg] = await Promise.allSettled([
    takeBroker(config.amqpUrl, () => Broker.connect(config.amqpUrl)),
    usesDb
      ? takeDb(config.pgUrl, dbPoolSize(jobs), onDbClose, () => openDb(config.pgUrl, dbPoolSize(jobs), onDbClose))
      : null,
  ]);
  if (first.status === 'rejected' || pg.status === 'rejected') {
    if (first.status === 'fulfilled') await first.value.close();
    if (pg.status === 'fulfilled') await pg.value?.db.end({ timeout: 0 });
    throw first.status === 'rejected' ? first.reason : (pg as PromiseRejectedResult).reason;
  }
  const { db, version } = pg.value ?? { db: noDatabase(entries), version: null };
  if (pg.value) dbHandle = db;
  const session: SessionInfo = {
    broker: { product: first.value.product, version: first.value.version },
    postgres: version,
    // derived from the version; the delivery-count ones measured on this broker when a lab reads them
    capabilities: entries.some((e) => e.measuresCapabilities)
      ? await (
          await import('../broker/capability-probe.js')
        ).measureCapabilities(first.value, namesFor(config), capabilities(first.value.version))
      : capabilities(first.value.version),
  };
  if (jobs > 1)
    hooks.stderr(
      `mqlab: ${entries.length} labs, ${jobs} at a time, each in its own namespace: ${entries.map((e, i) => `${e.name}=${configs[i]!.namespace}`).join(' ')}`,
    );
  let spare: Broker | null = first.value; // the first lab uses the connection that just proved the broker
  // one lab's failure (or Ctrl-C) stops the labs still running
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const output = new LabOutput(entries.length, jobs > 1, hooks.stderr);
  const times = jobs > 1 ? recordedTimes(config.home) : {};
  let lost: EnvError | undefined;
  try {
    const results = await runInOrder(
      plan,
      async (planned, i): Promise<LabReport | null> => {
        const { entry } = planned;
        if (stop.signal.aborted) throw new Interrupted();
        // a service is gone: the labs not started yet would only fail the same way
        if (lost) return null;
        const out = labOutDir(opts.out, entry.name, entries.length > 1);
        const labHooks = { ...hooks, stderr: output.stderrOf(i) };
        let outcome: LabOutcome;
        const missing = await entry.requires?.(configs[i]!);
        if (missing) return skippedReport(entry, missing, jobs > 1 ? configs[i]!.namespace : undefined);
        try {
          const broker = spare ?? (await Broker.connect(config.amqpUrl));
          spare = null;
          outcome = await runOne({
            ...planned,
            config: configs[i]!,
            runOptions: { ...opts, out },
            hooks: labHooks,
            signal: stop.signal,
            db,
            capabilities: session.capabilities,
            broker,
            watch,
          });
        } catch (err) {
          if (!(err instanceof EnvError) || err instanceof Interrupted || err instanceof UsageError) throw err;
          outcome = { report: environmentReport(entry, err), cause: err }; // the broker refused the lab's connection
        }
        const { report, cause } = outcome;
        if (jobs > 1) report.namespace = configs[i]!.namespace;
        if (out) writeAssertOut(out, report);
        if (cause) lost ??= watch.first ?? cause;
        return report;
      },
      {
        jobs,
        startOrder:
          jobs > 1
            ? disruptiveLast(
                entries,
                longestFirst(entries, (e) => expectedMs(e, times)),
              )
            : undefined,
        alone: (i) => entries[i]!.disruptive === true,
        onResult: (report, i) => {
          output.flush(i);
          if (report) hooks.onReport?.(report);
        },
        onError: () => stop.abort(),
      },
    );
    const reports = results.filter((r): r is LabReport => r !== null);
    recordTimes(
      config.home,
      Object.fromEntries(
        reports.filter((r) => r.status === 'passed' || r.status === 'failed').map((r) => [r.lab, r.timings.totalMs]),
      ),
    );
    return { session, reports, ...(lost ? { lost } : {}) };
  } finally {
    ending = true;
    output.flushAll(); // what interrupted labs printed so far
    signal.removeEventListener('abort', onAbort);
    await spare?.close();
    // postgres.js 3.4.9 keeps a query that a connection error rejected (the loss probe's, during db-outage)
    // as the connection's current one, and end() waits for it until its timeout (porsager/postgres #1097,
    // #1130): every run with db-outage ended 1 s late. Not `timeout: 0`: its destroy path ended mqlab in a
    // libuv abort (uv__epoll_ctl_prep, EPOLL_CTL_MOD) in 3 of 11 Ctrl-C runs of db-outage under load. The
    // run's work is done: the end goes on, the run does not wait for it longer than POOL_END_MS. Not
    // less: with the run going on at once (writing its --json document) while the end was under way,
    // `mqlab all` after db-outage aborted in libuv (uv__epoll_ctl_prep, EPOLL_CTL_MOD on fd 19: gdb) in
    // 4 of 6 runs; waiting for the end of the idle connections (15-19 ms) it did in none of 6.
    await Promise.race([db.end({ timeout: watch.first ? 0 : 1 }).catch(() => {}), sleep(POOL_END_MS)]);
  }
}

/** how long a finished run waits for its pool to end (idle connections close in 15-19 ms) */
const POOL_END_MS = 100;

/** ctx.db of a run whose labs declared they use no database: it ends at once, and any use is a lab bug (exit 2) */
function noDatabase(entries: readonly LabMeta[]): Db {
  const refuse = () => {
    throw new UsageError(
      `${entries.map((e) => e.name).join(', ')}: declared database: false (meta.ts) but used the database`,
    );
  };
  const pool = Object.assign(() => refuse(), { end: () => Promise.resolve() });
  return new Proxy(pool, { get: (target, key) => (key === 'end' ? target.end : refuse()) }) as unknown as Db;
}

/** what running one lab gave: its report and, when a service was lost or refused, that error */
interface LabOutcome {
  report: LabReport;
  cause?: EnvError;
}

/** one lab's run: the lab with its options, and what the run shares with it */
interface LabRun<O> extends PlannedLab<O> {
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

/** how long a disruptive lab stopped by a lost service gets to start what it stopped (an outage waits up to 120 s for it) */
const DISRUPTIVE_SETTLE_MS = 150_000;

/** a lab's report before anything ran: no lines, checks, facts or events yet, no time spent */
function emptyReport(entry: LabMeta, status: LabReport['status']): LabReport {
  return {
    lab: entry.name,
    title: entry.title,
    status,
    lines: [],
    checks: [],
    facts: {},
    timings: { setupMs: 0, runMs: 0, totalMs: 0 },
    events: [],
  };
}

/** a lab whose `requires` says it cannot run here: SKIP with the reason (run alone, the CLI refused it first) */
function skippedReport(entry: LabMeta, reason: string, namespace?: string): LabReport {
  return { ...emptyReport(entry, 'skipped'), skipped: reason, ...(namespace ? { namespace } : {}) };
}

/** the report of a lab that stopped because a service was lost or refused: `base`, what the lab got to */
function environmentReport(entry: LabMeta, e: EnvError, base = emptyReport(entry, 'error')): LabReport {
  // "RabbitMQ at amqp://app:***@…: unreachable" names its service and URL in front
  const named = /^(RabbitMQ management API|RabbitMQ|PostgreSQL) at (\S+?):? /.exec(e.message);
  const service = e instanceof ServiceLost ? e.service : (named?.[1] ?? 'environment');
  const url = e instanceof ServiceLost ? maskUrl(e.url) : (named?.[2] ?? '');
  return { ...base, status: 'error', error: e.message, environment: { service, url, message: e.message } };
}

async function runOne<O>(run: LabRun<O>): Promise<LabOutcome> {
  const { entry, options, config, runOptions, hooks, signal, db, broker, watch } = run;
  const started = performance.now();
  const names = namesFor(config);
  const observer = hooks.observer;
  const log = new EventLog(
    { lab: entry.name },
    runOptions.verbose ? hooks.stderr : undefined,
    observer && ((e) => observer.event(entry.name, e)),
  );
  const report: LabReport = { ...emptyReport(entry, 'error'), events: log.events };
  const faults = [...faultsFor(entry)];
  if (faults.length) report.faults = faults;
  const { lab } = await entry.load();
  const onAbort = () => void broker.close();
  signal.addEventListener('abort', onAbort, { once: true });
  broker.onLost((cause) => watch.report(new ServiceLost('RabbitMQ', config.amqpUrl, cause)));
  // the lab's sleeps, waits and child processes end as soon as a service is lost
  const stop = new AbortController();
  watch.onLoss(() => stop.abort(watch.first));
  const labSignal = AbortSignal.any([signal, stop.signal]);
  // every pending sleep of the lab listens on it (a stream waits for each confirm in flight with one),
  // each listener removed with its timer: Node's warning at 11 listeners is no leak here
  setMaxListeners(0, labSignal);
  const orLost = <T>(p: Promise<T>) => Promise.race([p, watch.lost]);
  let sampler: ReturnType<typeof sampleDepths> | undefined;
  let running: Promise<LabResult> | undefined;
  const ended = new AbortController();
  const samplerConn = runOptions.depths ? samplerConnection(config.amqpUrl) : null; // connects while the lab is set up
  try {
    // the topology as data, built once: declared, purged, reported, and counted at each checkpoint
    const topology = lab.topology?.(names, options);
    const queues = topology?.queues.map((q) => q.name) ?? [];
    await orLost(
      prepare(lab, topology, broker, db, names, (q) =>
        hooks.stderr(`${entry.name}: queue ${q} had other arguments; deleted and declared again`),
      ),
    );
    report.timings.setupMs = performance.now() - started;
    const pause = { sample: async () => {} };
    const ctx = context({ ...run, signal: labSignal }, { log, names, queues, pause, ended: ended.signal });
    if (topology) report.topology = topology;
    observer?.labStarted({
      lab: entry.name,
      title: entry.title,
      topology: topology ?? null,
      checkpoints: Object.entries(entry.checkpoints).map(([name, description]) => ({
        name,
        description: String(description),
      })),
      faults,
    });
    if (samplerConn) {
      const depths = sampleDepths(
        samplerConn,
        ctx.mgmt,
        queues,
        undefined,
        observer && ((s) => observer.sample(entry.name, queues, s)),
      );
      sampler = depths;
      pause.sample = () => depths.now();
    }
    const runStart = performance.now();
    const startedAt = new Date().toISOString();
    running = lab.run(ctx);
    const result = await orLost(running);
    report.timings.runMs = performance.now() - runStart;
    report.window = { start: startedAt, end: new Date().toISOString() };
    refuseUndeclared(entry, result);
    report.lines = result.lines;
    report.facts = result.facts ?? {};
    report.checks = result.checks.map(evaluate);
    if (result.skipped) {
      report.status = 'skipped';
      report.skipped = result.skipped;
    } else {
      report.status = report.checks.length > 0 && report.checks.every((c) => c.pass) ? 'passed' : 'failed';
    }
  } catch (err) {
    if (signal.aborted) throw new Interrupted();
    if (err instanceof UsageError) throw err; // a lab bug (an undeclared check or checkpoint), not a lost service
    const env = await environmentCause(err, watch);
    if (env) {
      // a lab that stopped a service puts it back in its own `finally` (src/engine/outage.ts): the loss ended the
      // wait for the lab, not the lab; without this the program exited before the service was started again
      if (entry.disruptive && running) await Promise.race([running.catch(() => {}), sleep(DISRUPTIVE_SETTLE_MS)]);
      return { report: environmentReport(entry, env, report), cause: env };
    }
    if (err instanceof Interrupted) throw err;
    report.status = 'error';
    report.error = err instanceof LabError ? err.message : String((err as Error)?.stack ?? err);
  } finally {
    ended.abort();
    signal.removeEventListener('abort', onAbort);
    if (sampler) report.depths = await sampler.stop();
    else await (await samplerConn)?.close();
    await broker.close();
    report.timings.totalMs = performance.now() - started;
  }
  return { report };
}

/**
 * Was the lab stopped by its environment? A loss the watch heard, an EnvError (management
 * refused), or an error that says a connection went away: the watch names the service (its
 * probe of the database may still be under way, so it gets a moment).
 */
async function environmentCause(err: unknown, watch: LossWatch): Promise<EnvError | null> {
  if (watch.first) return watch.first;
  if (err instanceof EnvError) return err;
  if (!isConnectionLoss(err)) return null;
  const heard = await Promise.race([
    watch.lost.catch((e: ServiceLost) => e),
    new Promise<null>((r) => setTimeout(r, 3000, null)),
  ]);
  // "the database system is shutting down": the database said so itself, whatever the watch heard
  return heard ?? (isServerGone(err) ? new EnvError(`PostgreSQL: ${(err as Error).message}`, LOST_HINT) : null);
}

/** a check the lab returned that its meta.checks does not declare: a lab bug, exit 2 naming it */
function refuseUndeclared(entry: LabMeta, result: LabResult): void {
  const undeclared = result.checks.map((c) => c.name).filter((name) => !entry.checks.includes(name));
  if (undeclared.length) {
    throw new UsageError(
      `${entry.name} returned the check(s) ${undeclared.join(', ')} that its meta.checks does not declare (a lab bug)`,
      `declare them in labs/${entry.name}/meta.ts`,
    );
  }
}

/** declare the topology and schema, then reset the lab's own state */
async function prepare<O>(
  lab: Lab<O>,
  topology: Topology | undefined,
  broker: Broker,
  db: Db,
  names: Names,
  onRecreate: (q: string) => void,
): Promise<void> {
  if (topology) {
    await declareTopology(broker, topology, onRecreate);
    await purgeTopology(broker, topology);
  }
  if (lab.schema) await db.unsafe(lab.schema(names));
  if (lab.reset) await db.unsafe(lab.reset(names));
}

/** what runOne set up for the lab before its ctx is built */
interface LabSetup {
  log: EventLog;
  names: Names;
  /** the topology's queues: the counts a checkpoint shows */
  queues: readonly string[];
  /** the --live page's depth sample at a --step pause (a no-op until the sampler runs) */
  pause: { sample(): Promise<void> };
  /** aborted when the lab's run has settled (LabContext.ended) */
  ended: AbortSignal;
}

/** the lab's ctx; `run.signal` is the lab's own (it also ends when a service is lost) */
function context<O>(run: LabRun<O>, { log, names, queues, pause, ended }: LabSetup): LabContext<O> {
  const { entry, options, config, runOptions, hooks, signal, broker, db, watch } = run;
  let seq = 0;
  const mgmt = new Management(config.mgmtUrl, config.vhost);
  const faults = faultsFor(entry);
  if (faults.size)
    hooks.stderr(`${entry.name}: ${FAULT_ENV} asks for the broken variant(s) ${[...faults].join(', ')} (test only)`);
  return {
    lab: entry.name,
    names,
    broker,
    db,
    mgmt,
    caps: run.capabilities,
    log,
    options,
    outDir: runOptions.out,
    config,
    async checkpoint(name, detail = {}, message) {
      if (!Object.hasOwn(entry.checkpoints, name)) {
        throw new UsageError(
          `${entry.name} called the checkpoint '${name}' that its meta.checkpoints does not declare (a lab bug)`,
          `declare it in labs/${entry.name}/meta.ts`,
        );
      }
      const token = `${entry.name}-${name}-${++seq}`;
      // the view (description, message, counts) costs a few requests: only when someone looks at it
      const view =
        runOptions.step || runOptions.views
          ? await checkpointView(
              entry,
              { name, seq, detail, message },
              { queues, broker, mgmt, fresh: runOptions.step },
            )
          : undefined;
      log.emit(
        'checkpoint',
        { checkpoint: name, ...detail, token, status: 'waiting' },
        undefined,
        view ? { view } : undefined,
      );
      if (runOptions.step && view) {
        const { checkpointLines } = await import('./checkpoint-text.js');
        hooks.stderr('\n' + checkpointLines(view, hooks.width).join('\n'));
        if (hooks.observer) await pause.sample(); // the live page shows the counts of this moment
        await hooks.waitForEnter('  press Enter to continue (Ctrl-C stops the lab) ');
      }
      log.emit('checkpoint', { checkpoint: name, ...detail, token, status: 'released' });
    },
    progress: (message) => hooks.stderr(`${entry.name}: ${message}`),
    // an interrupt rejects every pending sleep at once: one the lab had not awaited yet (a window it
    // races later) must not crash the process as an unhandled rejection; awaiting it still throws
    sleep: (ms) => handled(sleep(ms, signal)),
    // a paused (--step) run waits for the user, not for a clock
    within: (p, ms, what) => handled(within(p, runOptions.step ? 24 * 3600_000 : ms, what, signal)),
    signal,
    ended,
    now: () => performance.now(),
    fault: (name) => faults.has(name),
    services: labServices(config, watch, log, entry.disruptive === true, entry.name, (line) =>
      hooks.stderr(`${entry.name}: ${line}`),
    ),
  };
}

/** one call of ctx.checkpoint: its name, its number in the lab's run, what the lab passed with it */
interface CheckpointCall {
  name: string;
  seq: number;
  detail: Record<string, unknown>;
  message: MessageAtCheckpoint | undefined;
}

/** where a checkpoint's counts come from; `fresh`: wait for statistics newer than the pause (--step) */
interface CountsSource {
  queues: readonly string[];
  broker: Broker;
  mgmt: Management;
  fresh: boolean;
}

/** what a checkpoint shows: the lab's description of it, the message, every queue's counts now */
async function checkpointView(
  entry: LabMeta,
  { name, seq, detail, message }: CheckpointCall,
  { queues, broker, mgmt, fresh }: CountsSource,
): Promise<CheckpointView> {
  // loaded here: only --step, --live and --html runs take views
  const [{ queueCounts }, { factsOf, messageOf }] = await Promise.all([
    import('../broker/queue-counts.js'),
    import('../core/checkpoint-view.js'),
  ]);
  const at = new Date().toISOString();
  // a message on a TTL hop (message.queue) leaves before a fresh sample could show it: ready only, then
  const counts = await queueCounts(broker, mgmt, queues, message?.queue ? 'none' : fresh ? 'fresh' : 'latest');
  const msg = message ?? messageOf(undefined, typeof detail.messageId === 'string' ? detail.messageId : undefined);
  return {
    lab: entry.name,
    checkpoint: name,
    seq,
    description: entry.checkpoints[name] ?? null,
    ...(typeof detail.process === 'string' ? { process: detail.process } : {}),
    ...(msg ? { message: msg } : {}),
    queues: counts,
    facts: factsOf(detail),
    at,
  };
}

/** the same promise, its rejection marked as handled (whoever awaits it still gets it) */
function handled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}
