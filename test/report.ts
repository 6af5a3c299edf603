/**
 * What the tests read from the CLI's --json output, typed: a lab run's document is the one
 * src/report/json.ts builds (docs/report.schema.json), with each lab's `facts` as the test that
 * reads them declares them (`F`: the fields it asserts, not a lab's every fact).
 */
import type { JsonDocument, JsonLab } from '../src/report/json.js';
import type { StatusReport } from '../src/services/status.js';

/** an event as the document writes it: source, line, process and the event's own fields, all strings (a checkpoint's `view` aside) */
export type EventDoc = Record<string, string>;

export type LabDoc<F = Record<string, unknown>> = Omit<JsonLab, 'facts' | 'events'> & { facts: F; events: EventDoc[] };
export type RunDoc<F = Record<string, unknown>> = Omit<JsonDocument, 'labs'> & { labs: LabDoc<F>[] };

/** `mqlab <lab> --json` (or `mqlab all --json`) output */
export const parseRun = <F = Record<string, unknown>>(stdout: string): RunDoc<F> => JSON.parse(stdout) as RunDoc<F>;

/** the first lab of a --json document: the lab that `mqlab <lab> --json` ran */
export function firstLab<F = Record<string, unknown>>(stdout: string): LabDoc<F> {
  const lab = parseRun<F>(stdout).labs[0];
  if (!lab) throw new Error(`the --json document lists no lab:\n${stdout}`);
  return lab;
}

/** `mqlab status --json` output */
export const parseStatus = (stdout: string): StatusReport => JSON.parse(stdout) as StatusReport;

/** a package.json's version (this one's: ROOT/package.json) */
export const versionIn = (packageJson: string): string => (JSON.parse(packageJson) as { version: string }).version;
