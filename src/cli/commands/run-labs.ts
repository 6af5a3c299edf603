/**
 * `mqlab <lab>` and `mqlab all`: run, print (text, --json, --junit), return how the run ended.
 * The --html writer and the --live page load only when asked for.
 */
import readline from 'node:readline';
import type { PlannedLab } from '../../lab/lab.js';
import type { Config } from '../../core/config.js';
import { runLabs } from '../../engine/run-labs.js';
import type { LabReport } from '../../report/lab-report.js';
import { exitCodeOf, renderLab, renderSummary, useColour } from '../../report/text.js';
import { jsonDocument } from '../../report/json.js';
import { JunitFile, type QuitNow } from '../../report/junit-file.js';
import { checkOutputPaths } from '../../report/out-files.js';
import { EnvError, Interrupted } from '../../core/errors.js';
import { holdServices } from '../../engine/set-hold.js';
import { nothingBegun, type EarlyStart } from '../../engine/early-start.js';
import { cannotRun } from '../../engine/refusal.js';
import type { LiveSession } from '../../page/session.js';
import type { RunRecorder } from '../../class/recorder.js';
import { writeUnmasked } from '../../log/redact-streams.js';
import { judgePrediction, parsePrediction, predictionLine, type Guess } from '../../report/prediction.js';

export interface RunFlags {
  json?: boolean;
  junit?: string;
  html?: string;
  verbose?: boolean;
  step?: boolean;
  out?: string;
  /** --color / --no-color (undefined: decide from the environment) */
  color?: boolean;
  /** `all --jobs N`: labs run at once */
  jobs?: number;
  /** false (--no-wait): a set another run holds is one line and exit 2, not a wait */
  wait?: boolean;
  /** --live [--port N]: serve the run on 127.0.0.1 */
  live?: boolean;
  port?: string;
  /** --live-viewers: a view-only page without the token */
  liveViewers?: boolean;
  /** --yes: on a set with a class, stop its services without asking (src/class/presence.ts) */
  yes?: boolean;
  /** --predict "name=value …": what the class expects, held against the run (and recorded on a class's board) */
  predict?: string;
}

/**
 * What main hands a run: `signal` aborts on the first Ctrl-C (the labs stop, the run ends with
 * exit 130); `quit` carries a QuitNow on the second, just before main exits at once, and the run
 * answers it with its --junit file (which has the labs that finished) for main to complete.
 */
export interface RunSignals {
  signal: AbortSignal;
  quit: EventTarget;
}

/**
 * How a run ended: its exit code, or the error that ended it early (main prints it and exits with
 * its code); `junit`: the run's --junit file, which main completes with why the run ended early.
 */
export type RunOutcome = { junit?: JunitFile | undefined } & ({ code: number } | { error: unknown });

/** one `mqlab <lab>` or `mqlab all`, as its action hands it over */
export interface CommandRun {
  plan: readonly PlannedLab[];
  config: Config;
  flags: RunFlags;
  /** `mqlab all`: a heading per lab and the summary table; a lab that cannot run here is SKIP, not exit 2 */
  summary: boolean;
  /** the set's hold and the connections the action began while this module loaded (beginRun) */
  start?: EarlyStart;
}

/** a CommandRun under way: the first Ctrl-C's signal, and the --junit file each lab is added to as it ends */
interface ActiveRun extends CommandRun {
  signal: AbortSignal;
  junit: JunitFile | undefined;
}

/** an ActiveRun once its pages are ready: the --live page (if asked for) and the --html writer (loaded if asked for) */
interface ReportedRun extends ActiveRun {
  live: LiveSession | null;
  writeHtml: typeof import('../../page/html.js').writeHtml | undefined;
  /** --predict, parsed */
  guesses: Guess[] | null;
}

export async function runCommand(run: CommandRun, { signal, quit }: RunSignals): Promise<RunOutcome> {
  const junit = run.flags.junit
    ? new JunitFile(
        run.flags.junit,
        run.plan.map((p) => p.entry.name),
      )
    : undefined;
  // not removed when the run ends: a second Ctrl-C while stdout drains finds the file already written
  if (junit) quit.addEventListener('quit', (e) => ((e as QuitNow).junit = junit));
  try {
    return { code: await runAndPrint({ ...run, signal, junit }), junit };
  } catch (error) {
    return { error, junit };
  }
}

async function runAndPrint(run: ActiveRun): Promise<number> {
  const { plan, config, flags, signal, summary } = run;
  const entries = plan.map((p) => p.entry);
  checkOutputPaths(flags);
  const guesses = flags.predict === undefined ? null : parsePrediction(flags.predict);
  // a lab run alone that cannot run here (e.g. it needs a cluster) is an environment error: one line, exit 2
  if (!summary)
    for (const e of entries) {
      const missing = await cannotRun(e, config);
      if (missing) throw new EnvError(`${e.name} ${missing}`);
    }
  const html = flags.html ? await import('../../page/html.js') : null;
  if (flags.html) html?.checkHtmlTarget(flags.html, summary);
  const liveCode =
    flags.live || flags.port !== undefined || flags.liveViewers ? await import('../../page/session.js') : null;
  const port = liveCode ? liveCode.livePort(flags) : null;
  // begun by the CLI with the connections (src/engine/early-start.ts) when it could, else here
  const start = run.start ?? nothingBegun();
  const lock = await start.takeHold(run.config.home, () => holdServices({ ...run, wait: run.flags.wait }));
  let live: LiveSession | null = null;
  try {
    live =
      port === null || !liveCode
        ? null
        : await liveCode.startLive({
            port,
            viewers: Boolean(flags.liveViewers),
            onTrouble: (line) => process.stderr.write(`mqlab: ${line} (the run goes on)\n`),
          });
    if (live) {
      // the address carries the run's token: written as it is (src/log/redact-streams.ts masks token= otherwise)
      writeUnmasked(
        process.stderr,
        `mqlab: live page at ${live.url} (127.0.0.1 only; the token in it lets a page in: keep it to yourself); the run starts when it connects\n`,
      );
      if (live.viewers) process.stderr.write(`mqlab: view-only page (no Continue) at ${live.viewUrl}\n`);
      await live.firstPage(() => waitForEnter('  (or press Enter to start without one) ', signal));
    }
    return await runAndReport({ ...run, start, live, writeHtml: html?.writeHtml, guesses });
  } finally {
    await live?.close();
    lock?.release();
  }
}

async function runAndReport(run: ReportedRun): Promise<number> {
  const { config, guesses } = run;
  // a class student's run writes its rows on the teacher's board (src/class/recorder.ts)
  const recorder = config.student
    ? await (
        await import('../../class/recorder.js')
      ).startRecorder(config, guesses, (line) => process.stderr.write(`mqlab: ${line}\n`))
    : null;
  const recording: Promise<void>[] = [];
  try {
    return await printRun(run, recorder, recording);
  } finally {
    await Promise.all(recording);
    await recorder?.close();
  }
}

/** run the labs and print them as they end; a class student's `recorder` writes each lab's row */
async function printRun(run: ReportedRun, recorder: RunRecorder | null, recording: Promise<void>[]): Promise<number> {
  const { plan, config, flags, signal, summary, junit, live, writeHtml, start, guesses } = run;
  const colour = !flags.json && useColour(process.stdout, process.env, flags.color);
  const print = (lines: string[]) => process.stdout.write(lines.map((l) => l + '\n').join(''));
  let first = true;
  const started = performance.now();
  const { session, reports, lost } = await runLabs({
    plan,
    config,
    // views: each checkpoint's counts and message taken at the pause, for the bench (live or recorded)
    options: {
      verbose: Boolean(flags.verbose),
      step: Boolean(flags.step),
      out: flags.out,
      jobs: flags.jobs,
      views: Boolean(live || flags.html),
      depths: Boolean(flags.json || live || flags.html),
    },
    hooks: {
      stderr: (line) => process.stderr.write(line + '\n'),
      waitForEnter: (prompt) => (live ? live.pause(() => waitForEnter(prompt, signal)) : waitForEnter(prompt, signal)),
      ...(live ? { observer: live.feed } : {}),
      width: process.stderr.columns || undefined,
      ...(recorder ? { labStarting: (lab: string, ns: string) => recorder.labStarting(lab, ns) } : {}),
      onReport: (r: LabReport) => {
        live?.labEnded(r);
        junit?.add(r);
        if (recorder) recording.push(recorder.labEnded(r, r.namespace ?? config.namespace));
        if (guesses && r.status !== 'skipped')
          process.stderr.write(
            `${r.lab}: ${r.status === 'error' ? 'prediction not judged: the run did not complete' : predictionLine(judgePrediction(guesses, r))}\n`,
          );
        if (flags.json) return;
        if (summary) print([`${first ? '' : '\n'}== ${r.lab}: ${r.title}`]);
        first = false;
        print(renderLab(r, colour));
      },
    },
    signal,
    start,
  });
  // --json and --html: one document, printed and drawn
  const doc = flags.json || flags.html ? jsonDocument(session, reports, config) : null;
  if (flags.json) process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  else if (summary) print(['', ...renderSummary(reports, colour, performance.now() - started)]);
  junit?.write();
  if (flags.html && doc && writeHtml) {
    const descriptions = new Map(
      plan.map(({ entry: e }) => [e.name, { ...(e.checkpoints as Record<string, string>) }]),
    );
    const files = writeHtml(flags.html, doc, summary, (lab) => ({ descriptions: descriptions.get(lab) ?? {} }));
    process.stderr.write(`timeline: ${files[0]}${files.length > 1 ? ` (and ${files.length - 1} lab pages)` : ''}\n`);
  }
  // a service was lost: the reports say so ("error"), and main prints the one line (exit 2)
  if (lost) throw lost;
  return exitCodeOf(reports);
}

let lines: AsyncIterator<string> | null = null;

/** one line reader for the whole run, so typed-ahead (or piped) Enters are not lost between pauses */
async function waitForEnter(prompt: string, signal: AbortSignal): Promise<void> {
  if (!lines) {
    const rl = readline.createInterface({ input: process.stdin, terminal: false });
    rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT')); // Ctrl-C at the prompt stops the lab
    signal.addEventListener('abort', () => rl.close(), { once: true });
    lines = rl[Symbol.asyncIterator]();
  }
  process.stderr.write(prompt);
  // a line not read yet (the page's Continue came first) is the next one awaited, not lost
  pending ??= lines.next();
  const next = await pending;
  pending = null;
  if (signal.aborted) throw new Interrupted();
  if (next.done) process.stderr.write('(no more input: going on)\n');
}

let pending: Promise<IteratorResult<string>> | null = null;
