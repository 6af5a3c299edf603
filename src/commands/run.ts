/** `mqlab <lab>` and `mqlab all`: run, print (text, --json, --junit), return the exit code. */
import fs from 'node:fs';
import readline from 'node:readline';
import type { LabEntry } from '../lab.js';
import type { Config } from '../config.js';
import { runLabs, type LabReport } from '../runner.js';
import { exitCodeOf, renderLab, renderSummary, useColour } from '../report/text.js';
import { jsonDocument } from '../report/json.js';
import { junitXml } from '../report/junit.js';
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
  if (flags.out) fs.mkdirSync(flags.out, { recursive: true });
  let first = true;
  const { session, reports } = await runLabs(
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
  if (flags.junit) fs.writeFileSync(flags.junit, junitXml(reports));
  return exitCodeOf(reports);
}

function waitForEnter(prompt: string, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
    rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT')); // Ctrl-C at the prompt stops the lab
    const onAbort = () => {
      rl.close();
      reject(new Interrupted());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    rl.question(prompt, () => {
      signal.removeEventListener('abort', onAbort);
      rl.close();
      resolve();
    });
  });
}
