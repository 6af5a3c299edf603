/**
 * The engine's front door: run a plan of labs — in order, or `--jobs N` at a time each in its own
 * namespace — against one session of services, each lab's report as soon as it and every earlier lab
 * finished. Knows no lab's queue names.
 */
import { Broker } from '../broker/broker.js';
import type { PlannedLab } from '../lab/lab.js';
import type { Config } from '../core/config.js';
import type { LabReport, SessionInfo } from '../report/lab-report.js';
import { EnvError, Interrupted, UsageError } from '../core/errors.js';
import { labOutDir, writeAssertOut } from '../report/out-files.js';
import { faultsFor } from '../lab/fault.js';
import { runInOrder } from './in-order.js';
import { disruptiveLast, jobConfig, LabOutput, longestFirst } from './jobs.js';
import { expectedMs, recordedTimes, recordTimes } from './lab-times.js';
import { nothingBegun, type EarlyStart } from './early-start.js';
import { openSession } from './session.js';
import { cannotRun } from './refusal.js';
import { environmentReport, runOne, skippedReport, type LabOutcome } from './run-one.js';
import type { Hooks, RunOptions } from './run-options.js';

/** what runLabs is asked to do: which labs, against which services, how, told to whom, until when */
interface RunRequest {
  /** the labs, each with the options it was planned with (src/lab/lab.ts planLab), in the order they report */
  plan: readonly PlannedLab[];
  config: Config;
  options: RunOptions;
  hooks: Hooks;
  /** aborts the run (Ctrl-C): the labs stop and runLabs rejects with Interrupted */
  signal: AbortSignal;
  /** what the CLI began while the engine loaded (none: everything is made here) */
  start?: EarlyStart | undefined;
}

/** what a run gave: the services it ran on, one report per lab, and the first service it lost (the run ends with exit 2) */
interface RunResult {
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
  // both services first, taking what the CLI began early (src/engine/early-start.ts): an environment
  // problem is reported before any lab starts
  const {
    info: session,
    watch,
    db,
    takeSpare,
    end,
  } = await openSession(entries, config, jobs, request.start ?? nothingBegun());
  if (jobs > 1)
    hooks.stderr(
      `mqlab: ${entries.length} labs, ${jobs} at a time, each in its own namespace: ${entries.map((e, i) => `${e.name}=${configs[i]!.namespace}`).join(' ')}`,
    );
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
        const missing = await cannotRun(entry, configs[i]!);
        if (missing) return skippedReport(entry, missing, jobs > 1 ? configs[i]!.namespace : undefined);
        try {
          // the first lab uses the connection that just proved the broker
          const broker = takeSpare() ?? (await Broker.connect(config.amqpUrl));
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
          if (!(err instanceof EnvError) || err instanceof UsageError) throw err; // Interrupted is no EnvError
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
    output.flushAll(); // what interrupted labs printed so far
    signal.removeEventListener('abort', onAbort);
    await end();
  }
}
