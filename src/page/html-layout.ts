/**
 * The --html timeline's geometry, as pure functions of the --json lab data: time → x, one lane
 * per process, each event's kind of mark, and message journeys (same messageId across lanes).
 */

/** an event as --json prints it: source, optional process, its fields flattened, and its line */
export interface TimelineEvent {
  source: string;
  process?: string;
  timestamp?: string;
  line: string;
  [field: string]: string | undefined;
}

interface Lane {
  key: string;
  label: string;
  /** what the lane is: a separate OS process, a part of the lab's own process, or the checkpoints */
  kind: 'process' | 'in-lab' | 'checkpoints';
}

export type MarkKind =
  'publish' | 'confirm' | 'receive' | 'settle' | 'retry' | 'dead' | 'checkpoint' | 'crash' | 'exit' | 'other';

/** a linear map from [t0, t1] (ms) onto [x0, x1] (px); a zero-length span maps to x0 */
export function timeScale(t0: number, t1: number, x0: number, x1: number): (t: number) => number {
  const span = t1 - t0;
  return (t) => (span <= 0 ? x0 : x0 + ((t - t0) / span) * (x1 - x0));
}

/** tick step of 1, 2 or 5 × 10^k ms giving at most `maxTicks` ticks across spanMs */
export function tickStep(spanMs: number, maxTicks = 10): number {
  if (spanMs <= 0) return 1;
  const raw = spanMs / maxTicks;
  const pow = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

/** 0 ms, 250 ms, 1 s, 1.5 s, 1.02 s, 12 s, 10 s (never "1. s": rounded, then trailing zeros and the point dropped) */
export function formatMs(ms: number): string {
  if (Math.abs(ms) < 999.5) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  return `${Number(s.toFixed(Math.abs(s) < 10 ? 2 : 1))} s`;
}

/** the lane an event belongs to: its process when another process printed it, checkpoints, else its source */
export function laneKey(e: TimelineEvent): string {
  if (e.process) return e.process;
  if (e.source === 'checkpoint') return 'checkpoint';
  return e.source;
}

/** lanes in order of first appearance, the run's checkpoints last */
export function lanes(events: TimelineEvent[]): Lane[] {
  const seen = new Map<string, Lane>();
  for (const e of events) {
    const key = laneKey(e);
    if (seen.has(key)) continue;
    const kind = e.process ? 'process' : key === 'checkpoint' ? 'checkpoints' : 'in-lab';
    seen.set(key, { key, label: key === 'checkpoint' ? 'checkpoints' : key, kind });
  }
  return [...seen.values()].sort((a, b) => Number(a.kind === 'checkpoints') - Number(b.kind === 'checkpoints'));
}

/** what kind of mark an event gets, from its status (and a child's exit code) */
export function markKind(e: TimelineEvent): MarkKind {
  const status = (e.status ?? '').toLowerCase();
  if (status === 'exited') return e.exitCode === '137' || e.signal === 'SIGKILL' ? 'crash' : 'exit';
  if (e.checkpoint !== undefined || e.source === 'checkpoint') return 'checkpoint';
  // parked: put aside in a parking queue by the consumer's own publish (retry-ladder), a dead letter's kind
  if (/dead|dlx|dlq|reject|expired|maxlen|poison|park/.test(status) || e.source === 'dlq') return 'dead';
  if (/retry|delay|requeue|nack|held/.test(status)) return 'retry';
  // a publish and its confirm are two moments: "the client sent it" and "the broker took it"
  if (/confirm/.test(status)) return 'confirm';
  if (/publish|sent|produced/.test(status)) return 'publish';
  if (/receiv|deliver|consum/.test(status)) return 'receive';
  if (/ack|commit|done|stored|archived|applied/.test(status)) return 'settle';
  return 'other';
}

/** event time in ms since the epoch (NaN when the event has no timestamp) */
export const eventTime = (e: TimelineEvent): number => Date.parse(e.timestamp ?? '');

/**
 * Journeys: for each messageId seen at more than one station, the hops between its consecutive
 * events in time order — published → received → delayed → redelivered → dead-lettered. Checkpoints
 * that name a message are pauses, not stations, and are left out. Returns index pairs into `events`.
 */
export function journeys(events: TimelineEvent[]): { messageId: string; hops: [number, number][] }[] {
  const byId = new Map<string, { i: number; t: number }[]>();
  events.forEach((e, i) => {
    if (!e.messageId || markKind(e) === 'checkpoint') return;
    byId.set(e.messageId, [...(byId.get(e.messageId) ?? []), { i, t: eventTime(e) }]);
  });
  const out: { messageId: string; hops: [number, number][] }[] = [];
  for (const [messageId, marks] of byId) {
    const sorted = [...marks].sort((a, b) => a.t - b.t || a.i - b.i);
    const hops: [number, number][] = [];
    let prev: number | undefined;
    for (const { i } of sorted) {
      if (prev !== undefined) hops.push([prev, i]);
      prev = i;
    }
    if (hops.length) out.push({ messageId, hops });
  }
  return out;
}

/**
 * Rows within a lane so marks closer than `minGap` px do not hide each other: each mark takes the
 * first row whose last mark is far enough left (row 0 when all are taken: the mark wraps around).
 */
export function stackRows(xs: number[], laneOf: number[], minGap: number, rows: number): number[] {
  const last = new Map<string, number>();
  return xs.map((x, i) => {
    for (let r = 0; r < rows; r++) {
      const k = `${laneOf[i]}:${r}`;
      const prev = last.get(k);
      if (prev === undefined || x - prev >= minGap) {
        last.set(k, x);
        return r;
      }
    }
    return 0;
  });
}
