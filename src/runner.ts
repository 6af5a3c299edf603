/**
 * The engine: for each lab, connect, declare its topology and schema, reset its own state,
 * run it, evaluate its checks. Knows no lab's queue names.
 */
import type { Lab, LabContext, LabEntry } from './lab.js';
import type { Config } from './config.js';
import { Broker } from './broker/broker.js';
import { Management } from './broker/management.js';
import { capabilities, type Capabilities } from './broker/capabilities.js';
import { declareTopology, purgeTopology } from './broker/topology.js';
import { openDb, type Db } from './db/client.js';
import { EventLog, type LabEvent } from './log/events.js';
import { names as makeNames } from './names.js';
import { evaluate, type CheckResult } from './report/checks.js';
import { EnvError, Interrupted, LabError } from './errors.js';
import { sleep, within } from './time.js';
import { labOutDir, writeAssertOut } from './report/out-files.js';
import { faultsFor } from './fault.js';

export interface RunOptions {
  verbose: boolean;
  step: boolean;
  out?: string;
  /** parsed lab options, keyed by lab name */
  labOptions: Record<string, Record<string, unknown>>;
}

export interface Hooks {
  /** a line for stderr: progress, checkpoints, verbose events */
  stderr(line: string): void;
  /** --step: resolve when the user pressed Enter */
  waitForEnter(prompt: string): Promise<void>;
  /** called as soon as a lab finished (text output is printed lab by lab) */
  onReport?(report: LabReport): void;
}

export type LabStatus = 'passed' | 'failed' | 'skipped' | 'error';

export interface LabReport {
  lab: string;
  title: string;
  status: LabStatus;
  lines: string[];
  checks: CheckResult[];
  facts: Record<string, unknown>;
  skipped?: string;
  error?: string;
  timings: { setupMs: number; runMs: number; totalMs: number };
  events: LabEvent[];
}

export interface SessionInfo {
  broker: { product: string; version: string };
  postgres: string;
  capabilities: Capabilities;
}

export async function runLabs(
  entries: LabEntry[],
  config: Config,
  opts: RunOptions,
  hooks: Hooks,
  signal: AbortSignal,
): Promise<{ session: SessionInfo; reports: LabReport[] }> {
  // Connect to both services first: an environment problem is reported before any lab starts.
  const [first, pg] = await Promise.allSettled([Broker.connect(config.amqpUrl), openDb(config.pgUrl)]);
  if (first.status === 'rejected' || pg.status === 'rejected') {
    if (first.status === 'fulfilled') await first.value.close();
    if (pg.status === 'fulfilled') await pg.value.db.end({ timeout: 0 });
    throw first.status === 'rejected' ? first.reason : (pg as PromiseRejectedResult).reason;
  }
  const { db, version } = pg.value;
  const session: SessionInfo = {
    broker: { product: first.value.product, version: first.value.version },
    postgres: version,
    capabilities: capabilities(first.value.version),
  };
  let spare: Broker | null = first.value; // the first lab uses the connection that just proved the broker
  const reports: LabReport[] = [];
  try {
    for (const entry of entries) {
      if (signal.aborted) throw new Interrupted();
      const broker = spare ?? (await Broker.connect(config.amqpUrl));
      spare = null;
      const out = labOutDir(opts.out, entry.name, entries.length > 1);
      const report = await runOne(entry, config, { ...opts, out }, hooks, signal, db, session.capabilities, broker);
      if (out) writeAssertOut(out, report);
      reports.push(report);
      hooks.onReport?.(report);
    }
  } finally {
    await spare?.close();
    await db.end({ timeout: 1 }).catch(() => {});
  }
  return { session, reports };
}

async function runOne(
  entry: LabEntry,
  config: Config,
  opts: RunOptions,
  hooks: Hooks,
  signal: AbortSignal,
  db: Db,
  caps: Capabilities,
  broker: Broker,
): Promise<LabReport> {
  const started = performance.now();
  const names = makeNames(config.namespace);
  const log = new EventLog({ lab: entry.name }, opts.verbose ? hooks.stderr : undefined);
  const report: LabReport = {
    lab: entry.name,
    title: entry.title,
    status: 'error',
    lines: [],
    checks: [],
    facts: {},
    timings: { setupMs: 0, runMs: 0, totalMs: 0 },
    events: log.events,
  };
  const { lab } = await entry.load();
  const onAbort = () => void broker.close();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await prepare(lab, broker, db, names, opts.labOptions[entry.name] ?? {}, (q) => hooks.stderr(`${entry.name}: queue ${q} had other arguments; deleted and declared again`));
    report.timings.setupMs = performance.now() - started;
    const ctx = context(entry, lab, config, opts, hooks, signal, broker, db, caps, log, names);
    const runStart = performance.now();
    const result = await lab.run(ctx);
    report.timings.runMs = performance.now() - runStart;
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
    if (err instanceof EnvError || err instanceof Interrupted) throw err;
    report.status = 'error';
    report.error = err instanceof LabError ? err.message : String((err as Error)?.stack ?? err);
  } finally {
    signal.removeEventListener('abort', onAbort);
    await broker.close();
    report.timings.totalMs = performance.now() - started;
  }
  return report;
}

/** declare the topology and schema, then reset the lab's own state */
async function prepare(
  lab: Lab,
  broker: Broker,
  db: Db,
  names: ReturnType<typeof makeNames>,
  options: Record<string, unknown>,
  onRecreate: (q: string) => void,
) {
  const topology = lab.topology?.(names, options);
  if (topology) {
    await declareTopology(broker, topology, onRecreate);
    await purgeTopology(broker, topology);
  }
  if (lab.schema) await db.unsafe(lab.schema(names));
  if (lab.reset) await db.unsafe(lab.reset(names));
}

function context(
  entry: LabEntry,
  lab: Lab,
  config: Config,
  opts: RunOptions,
  hooks: Hooks,
  signal: AbortSignal,
  broker: Broker,
  db: Db,
  caps: Capabilities,
  log: EventLog,
  names: ReturnType<typeof makeNames>,
): LabContext {
  let seq = 0;
  const faults = faultsFor(entry.name, process.env.MQLAB_FAULT);
  if (faults.size) hooks.stderr(`${entry.name}: MQLAB_FAULT injects ${[...faults].join(', ')} (a deliberately broken run)`);
  return {
    lab: entry.name,
    names,
    broker,
    db,
    mgmt: new Management(config.mgmtUrl, config.vhost),
    caps,
    log,
    options: opts.labOptions[entry.name] ?? {},
    outDir: opts.out,
    config,
    async checkpoint(name, detail = {}) {
      const token = `${entry.name}-${name}-${++seq}`;
      log.emit('checkpoint', { checkpoint: name, ...detail, token, status: 'waiting' });
      if (opts.step) {
        const topology = lab.topology?.(names, opts.labOptions[entry.name] ?? {});
        const depths = topology
          ? await Promise.all(topology.queues.map(async (q) => `${q.name}=${await broker.depth(q.name).catch(() => '?')}`))
          : [];
        hooks.stderr(`\n[checkpoint] ${name} ${Object.entries(detail).map(([k, v]) => `${k}=${v}`).join(' ')}`);
        if (depths.length) hooks.stderr(`  ready messages: ${depths.join('  ')}`);
        await hooks.waitForEnter('  press Enter to continue (Ctrl-C stops the lab) ');
      }
      log.emit('checkpoint', { checkpoint: name, ...detail, token, status: 'released' });
    },
    progress: (message) => hooks.stderr(`${entry.name}: ${message}`),
    sleep: (ms) => sleep(ms, signal),
    // a paused (--step) run waits for the user, not for a clock
    within: (p, ms, what) => within(p, opts.step ? 24 * 3600_000 : ms, what, signal),
    signal,
    now: () => performance.now(),
    fault: (name) => faults.has(name),
  };
}
