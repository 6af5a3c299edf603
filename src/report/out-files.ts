/**
 * --out DIR: where each process's output is kept, one file per process
 * (producer.out.txt, consumer-run1.out.txt, …, assert.out.txt with the PASS lines).
 * One lab writes into DIR; `mqlab all` gives every lab its own DIR/<lab>/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LabReport } from './lab-report.js';
import { formatEvent, type LabEvent } from '../log/events.js';
import { renderLab } from './text.js';
import { redactSecrets } from '../core/secrets.js';
import { EnvError, UsageError } from '../core/errors.js';

/** the directory a lab writes into (created), or undefined without --out */
export function labOutDir(out: string | undefined, lab: string, severalLabs: boolean): string | undefined {
  if (!out) return undefined;
  const dir = severalLabs ? path.join(out, lab) : out;
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** assert.out.txt: the lab's PASS/FAIL/SKIP lines and its RESULT, as printed, without colours */
export function writeAssertOut(dir: string, report: LabReport): void {
  const lines = renderLab(report, false).slice(report.lines.length);
  writeOutput(path.join(dir, 'assert.out.txt'), lines.join('\n') + '\n');
}

/** <name>.out.txt for a process that ran inside the lab (an in-process producer): its event lines */
export function keepEvents(dir: string | undefined, name: string, events: LabEvent[]): void {
  if (dir) writeOutput(path.join(dir, `${name}.out.txt`), events.map((e) => formatEvent(e) + '\n').join(''));
}

/** every file mqlab writes for the user (--out, --junit): secrets redacted like stdout */
export function writeOutput(file: string, text: string): void {
  writeUserFile(file, redactSecrets(text));
}

/** a file the user asked for: a failure to write it (a full device, no such directory) is one line, exit 2 */
export function writeUserFile(file: string, text: string): void {
  try {
    fs.writeFileSync(file, text);
  } catch (err) {
    throw new EnvError(
      `cannot write ${file} (${codeOf(err)})`,
      'give a path on a device with room that you can write to',
    );
  }
}

/** can `file` be opened for writing (made, then removed again, when it is not there)? else the reason */
export function unwritable(file: string): string | null {
  const existed = fs.existsSync(file);
  try {
    fs.closeSync(fs.openSync(file, 'a'));
    if (!existed) fs.rmSync(file);
    return null;
  } catch (err) {
    return codeOf(err);
  }
}

/**
 * --out DIR and --junit FILE are checked before any service is touched: a path mqlab cannot
 * write is a usage error (one line, exit 2), not a stack trace after the whole run.
 */
export function checkOutputPaths(flags: { out?: string | undefined; junit?: string | undefined }): void {
  if (flags.out !== undefined) {
    try {
      makeDirs(path.resolve(flags.out));
      fs.accessSync(flags.out, fs.constants.W_OK);
    } catch (err) {
      throw new UsageError(
        `--out ${JSON.stringify(flags.out)}: cannot write there (${codeOf(err)})`,
        'give a directory you can create and write to',
      );
    }
  }
  if (flags.junit !== undefined) {
    const dir = path.dirname(path.resolve(flags.junit));
    const problem =
      flags.junit === '' || (fs.existsSync(flags.junit) && fs.statSync(flags.junit).isDirectory())
        ? 'it is a directory'
        : !fs.existsSync(dir) || !fs.statSync(dir).isDirectory()
          ? `no directory ${dir}`
          : unwritable(flags.junit);
    if (problem)
      throw new UsageError(
        `--junit ${JSON.stringify(flags.junit)}: cannot write the XML file there (${problem})`,
        'give a file path in a directory you can write to',
      );
  }
}

/** mkdir -p one level at a time (node's recursive mkdir spins forever under /proc) */
function makeDirs(dir: string): void {
  if (fs.existsSync(dir)) {
    if (!fs.statSync(dir).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    return;
  }
  makeDirs(path.dirname(dir));
  fs.mkdirSync(dir);
}

const codeOf = (err: unknown) => String((err as { code?: string })?.code ?? (err as Error)?.message ?? err);
