/**
 * --out DIR: where each process's output is kept, as the seed's demos keep it
 * (producer.out.txt, consumer-run1.out.txt, …, assert.out.txt with the PASS lines).
 * One lab writes into DIR; `mqlab all` gives every lab its own DIR/<lab>/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LabReport } from '../runner.js';
import { formatEvent, type LabEvent } from '../log/events.js';
import { renderLab } from './text.js';
import { redactSecrets } from '../secrets.js';

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
  fs.writeFileSync(file, redactSecrets(text));
}
