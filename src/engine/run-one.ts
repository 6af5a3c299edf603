/**
 * One lab's life: its code loaded, its topology and schema declared, its own state reset, its run
 * (with its ctx, src/engine/context.ts) and its checks evaluated into its report; a lost service or a
 * refused connection turned into an environment report.
 */
import { setMaxListeners } from 'node:events';
import type { Lab, LabMeta, LabResult } from '../lab/lab.js';
import type { Broker } from '../broker/broker.js';
import { declareTopology, purgeTopology, type Topology } from '../broker/topology.js';
import { setupError, type Db } from '../db/client.js';
import { EventLog } from '../log/events.js';
import { namesFor, type Names } from '../core/names.js';
import { evaluate } from '../report/checks.js';
import type { LabReport } from '../report/lab-report.js';
import { EnvError, Interrupted, LabError, UsageError } from '../core/errors.js';
import { maskUrl } from '../core/urls.js';
import { sleep } from '../core/time.js';
import { faultsFor } from '../lab/fault.js';
import { sampleDepths, samplerConnection } from '../broker/depth-sampler.js';
import { LOST_HINT, ServiceLost, isConnectionLoss, isServerGone, type LossWatch } from '../core/lost.js';
import { context } from './context.js';
import { runVariants } from './variants.js';
import type { LabRun } from './run-options.js';

/** what running one lab gave: its report and, when a service was lost or refused, that error */
export interface LabOutcome {
  report: LabReport;
  cause?: EnvError;
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
export function skippedReport(entry: LabMeta, reason: string, namespace?: string): LabReport {
  return { ...emptyReport(entry, 'skipped'), skipped: reason, ...(namespace ? { namespace } : {}) };
}

/** the report of a lab that stopped because a service was lost or refused: `base`, what the lab got to */
export function environmentReport(entry: LabMeta, e: EnvError, base = emptyReport(entry, 'error')): LabReport {
  // "RabbitMQ at amqp://app:***@…: unreachable" names its service and URL in front
  const named = /^(RabbitMQ management API|RabbitMQ|PostgreSQL) at (\S+?):? /.exec(e.message);
  const service = e instanceof ServiceLost ? e.service : (named?.[1] ?? 'environment');
  const url = e instanceof ServiceLost ? maskUrl(e.url) : (named?.[2] ?? '');
  return { ...base, status: 'error', error: e.message, environment: { service, url, message: e.message } };
}

export async function runOne<O>(run: LabRun<O>): Promise<LabOutcome> {
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
  const [{ lab }, variants] = await Promise.all([entry.load(), runVariants(entry)]);
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
    const topology = variants.topology(lab.topology?.(names, options), names);
    const queues = topology?.queues.map((q) => q.name) ?? [];
    const exchanges = topology?.exchanges?.map((x) => x.name) ?? [];
    await hooks.labStarting?.(entry.name, config.namespace);
    await orLost(
      prepare(lab, topology, broker, db, names, (q) =>
        hooks.stderr(`${entry.name}: queue ${q} had other arguments; deleted and declared again`),
      ).catch((err: unknown) => {
        throw setupError(err, config.pgUrl) ?? err;
      }),
    );
    report.timings.setupMs = performance.now() - started;
    const pause = { sample: async () => {} };
    const ctx = context(
      { ...run, signal: labSignal },
      { log, names, queues, exchanges, pause, ended: ended.signal, variants },
    );
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
        { queues, exchanges },
        undefined,
        observer && ((s) => observer.sample(entry.name, queues, s)),
      );
      sampler = depths;
      pause.sample = () => depths.now();
    }
    const runStart = performance.now();
    const startedAt = new Date().toISOString();
    running = variants.run(ctx, () => lab.run(ctx));
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
    // never a stack trace in a report (--json, --junit, --out): MQLAB_DEBUG prints it on stderr
    report.error = err instanceof LabError ? err.message : errorLine(err);
    if (process.env.MQLAB_DEBUG) hooks.stderr(String((err as Error)?.stack ?? err));
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

/** an unexpected error as one line: its class and message */
const errorLine = (err: unknown) =>
  err instanceof Error ? `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}` : String(err);
