/**
 * Structured events as key=value lines, in the form the source demos print (docs/labs/retry-dlq.md):
 * [consumer] timestamp=2026-10-07T10:27:14.314Z level=INFO lab=retry messageId=… status=received
 * Recorded for --json; written to stderr as they happen with --verbose.
 */
import type { CheckpointView } from '../core/checkpoint-view.js';
import { text } from '../core/text.js';

export interface LabEvent {
  source: string;
  fields: Record<string, string>;
  /** the separate process that printed it (runChild's name, e.g. consumer-run1); absent for the lab's own process */
  process?: string;
  /** a checkpoint's waiting event: what the checkpoint shows (--step, or a page) */
  view?: CheckpointView;
}

export class EventLog {
  readonly events: LabEvent[] = [];
  private readonly listeners: ((e: LabEvent) => void)[] = [];

  constructor(
    private readonly base: Record<string, string> = {},
    private readonly sink?: (line: string) => void,
    /** every event as it is recorded (--live) */
    private readonly observer?: (e: LabEvent) => void,
  ) {}

  emit(source: string, fields: Record<string, unknown>, process?: string, extra?: Pick<LabEvent, 'view'>): LabEvent {
    return this.record({ source, fields: eventFields(this.base, fields), ...(process ? { process } : {}), ...extra });
  }

  /** an event that another process already formatted (child consumers print their own lines) */
  record(e: LabEvent): LabEvent {
    this.events.push(e);
    this.sink?.(formatEvent(e));
    this.observer?.(e);
    for (const listener of this.listeners) listener(e);
    return e;
  }

  /** call `listener` with every event once it is recorded (a broken variant's action: src/engine/variants.ts) */
  listen(listener: (e: LabEvent) => void): void {
    this.listeners.push(listener);
  }
}

/** an event line's field order: timestamp, level, service, product, lab, then the event's own fields */
export function eventFields(base: Record<string, string>, fields: Record<string, unknown>): Record<string, string> {
  const f = stringify(fields);
  const head: Record<string, string> = { timestamp: new Date().toISOString() };
  for (const k of ['level', 'service', 'product']) if (f[k] !== undefined) head[k] = f[k];
  return { ...head, ...base, ...f };
}

function stringify(fields: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields))
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(',') : text(v, 'null');
  return out;
}

export function formatEvent(e: LabEvent): string {
  const kv = Object.entries(e.fields).map(([k, v]) => `${k}=${/[\s"=]/.test(v) || v === '' ? JSON.stringify(v) : v}`);
  return `[${e.source}] ${kv.join(' ')}`;
}

/** parse a line printed by formatEvent (null when the line is not an event) */
export function parseEvent(line: string): LabEvent | null {
  const m = /^\[([\w.-]+)\] (.*)$/.exec(line.trim());
  const [, source, rest] = m ?? [];
  if (source === undefined || rest === undefined) return null;
  const fields: Record<string, string> = {};
  const re = /([\w.-]+)=("(?:[^"\\]|\\.)*"|\S*)/g;
  for (let kv; (kv = re.exec(rest));) {
    const [, key, value] = kv;
    if (key !== undefined && value !== undefined)
      fields[key] = value.startsWith('"') ? (JSON.parse(value) as string) : value;
  }
  if (Object.keys(fields).length === 0) return null;
  return { source, fields };
}
