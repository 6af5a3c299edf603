/**
 * The --junit file of one run: labs are added as they finish; the file is written once, at the
 * end of the run or — by main, on exit 1, 2 or 130 — with an <error> testcase saying why the run
 * ended early, so a CI report step always finds it.
 */
import { writeOutput } from './out-files.js';
import type { LabReport } from './lab-report.js';
import { junitXml, type JunitLab, type RunEnd } from './junit.js';

export class JunitFile {
  readonly labs: JunitLab[] = [];
  written = false;

  /** `planned`: the labs this run means to run, in order (empty when none is known yet) */
  constructor(
    readonly file: string,
    private readonly planned: string[] = [],
  ) {}

  add(report: LabReport): void {
    this.labs.push({ report, startedAt: new Date(Date.now() - report.timings.totalMs) });
  }

  /** write the file; with `end`, the lab that was running gets an <error> testcase and the rest are skipped */
  write(end?: Pick<RunEnd, 'kind' | 'message'>): void {
    const next = this.labs.length;
    const full = end && { ...end, lab: this.planned[next], notRun: this.planned.slice(next + 1), at: new Date() };
    writeOutput(this.file, junitXml(this.labs, full));
    this.written = true;
  }
}

/** main's second Ctrl-C, just before it exits at once: a run under way answers with its --junit file */
export class QuitNow extends Event {
  junit?: JunitFile;
  constructor() {
    super('quit');
  }
}

/** `--junit FILE` / `--junit=FILE` from raw arguments, for a run that ended before its action ran */
export function junitFromArgv(argv: string[]): string | undefined {
  for (const [i, arg] of argv.entries()) {
    if (arg === '--') return undefined;
    const next = argv[i + 1];
    if (arg === '--junit' && next !== undefined && !next.startsWith('-')) return next;
    if (arg.startsWith('--junit=')) return arg.slice('--junit='.length) || undefined;
  }
  return undefined;
}
