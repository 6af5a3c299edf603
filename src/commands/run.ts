/** `mqlab <lab>` and `mqlab all`: run, print (text, --json, --junit), return the exit code. */
import readline from 'node:readline';
import type { LabEntry } from '../lab.js';
import type { Config } from '../config.js';
import { runLabs, type LabReport } from '../runner.js';
import { exitCodeOf, renderLab, renderSummary, useColour } from '../report/text.js';
import { jsonDocument } from '../report/json.js';
import { junitXml } from '../report/junit.js';
import { checkOutputPaths, writeOutput } from '../report/out-files.js';
import { Interrupted } from '../errors.js';

export interface RunFlags {
  json?: boolean;
  junit?: string;
  verbose?: boolean;
  step?: boolean;
  out?: string;
}

export async function runCommand(
  entries: LabEntry[],
  config: Config,
  flags: RunFlags,
  labOptions: Record<string, Record<string, unknown>>,
  signal: AbortSignal,
  summary: boolean,
): Promise<number> {
  const colour = !flags.json && useColour(process.stdout);
  const print = (lines: string[]) => process.stdout.write(lines.map((l) => l + '\n').join(''));
  checkOutputPaths(flags);
  let first = true;
  const { session, reports, lost } = await runLabs(
    entries,
    config,
    { verbose: Boolean(flags.verbose), step: Boolean(flags.step), out: flags.out, labOptions },
    {
      stderr: (line) => process.stderr.write(line + '\n'),
      waitForEnter: (prompt) => waitForEnter(prompt, signal),
      onReport: (r: LabReport) => {
        if (flags.json) return;
        if (summary) print([`${first ? '' : '\n'}== ${r.lab}: ${r.title}`]);
        first = false;
        print(renderLab(r, colour));
      },
    },
    signal,
  );
  if (flags.json) process.stdout.write(JSON.stringify(jsonDocument(session, reports, config), null, 2) + '\n');
  else if (summary) print(['', ...renderSummary(reports, colour)]);
  if (flags.junit) writeOutput(flags.junit, junitXml(reports));
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
  const next = await lines.next();
  if (signal.aborted) throw new Interrupted();
  if (next.done) process.stderr.write('(no more input: going on)\n');
}
