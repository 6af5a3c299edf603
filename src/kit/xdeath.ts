/**
 * Reading the broker's dead-letter history (the x-death header). Entries are keyed by
 * (queue, reason), newest first: x-death[0] may be a delay queue's `expired` entry, so
 * always look an entry up by queue and reason.
 */
import { text } from '../core/text.js';
export interface DeathEntry {
  queue: string;
  reason: string;
  count: number;
  exchange: string;
  routingKeys: string[];
  /** seconds since the epoch, as the broker stamped it */
  time: number | null;
  /** the expiration the message had when it died this way (a per-message TTL), else null */
  originalExpiration: string | null;
}

export function deadLetterHistory(headers: Record<string, unknown> | undefined): DeathEntry[] {
  const raw = headers?.['x-death'];
  if (!Array.isArray(raw)) return [];
  return raw.map((e: Record<string, unknown>) => ({
    queue: text(e.queue),
    reason: text(e.reason),
    count: Number(e.count ?? 0),
    exchange: text(e.exchange),
    routingKeys: Array.isArray(e['routing-keys']) ? (e['routing-keys'] as unknown[]).map(String) : [],
    time: timeOf(e.time),
    originalExpiration: e['original-expiration'] === undefined ? null : text(e['original-expiration']),
  }));
}

/**
 * The entry the broker updated last: the death this copy arrived from. It comes first on every line
 * (3.10 too, where only the first entry is the newest: the order of the rest is not recency).
 */
export function newestDeath(headers: Record<string, unknown> | undefined): DeathEntry | null {
  return deadLetterHistory(headers)[0] ?? null;
}

/** count of the (queue, reason) entry, 0 when the message never died that way */
export function deathCount(headers: Record<string, unknown> | undefined, queue: string, reason: string): number {
  return deadLetterHistory(headers).find((e) => e.queue === queue && e.reason === reason)?.count ?? 0;
}

interface FirstDeath {
  reason: string | null;
  queue: string | null;
  exchange: string | null;
}

export function firstDeath(headers: Record<string, unknown> | undefined): FirstDeath {
  const s = (k: string) => (headers?.[k] === undefined ? null : text(headers[k]));
  return { reason: s('x-first-death-reason'), queue: s('x-first-death-queue'), exchange: s('x-first-death-exchange') };
}

function timeOf(t: unknown): number | null {
  if (typeof t === 'number') return t;
  if (typeof t === 'bigint') return Number(t);
  if (t instanceof Date) return Math.floor(t.getTime() / 1000);
  if (t && typeof t === 'object' && 'value' in t) return Number(t.value);
  return null;
}
