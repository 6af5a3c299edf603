/**
 * What the archiver keeps of a dead letter: the business id from the payload, and the broker's
 * own dead-letter history (x-first-death-* headers and x-death, newest entry first).
 * Pure: the table decides what it accepts; a missing field stays null and the table refuses it.
 */
import { deadLetterHistory, firstDeath } from '../../src/kit/index.js';

interface ArchiveRecord {
  businessId: string | null;
  messageId: string | null;
  payload: string;
  originalExchange: string | null;
  originalRoutingKey: string | null;
  firstDeathReason: string | null;
  firstDeathQueue: string | null;
  firstDeathAt: Date | null;
  lastDeathReason: string | null;
  lastDeathQueue: string | null;
  lastDeathAt: Date | null;
  /** how many times the broker dead-lettered the message: the sum of the x-death counts */
  attempts: number;
}

export interface Letter {
  body: string;
  messageId: string | undefined;
  headers: Record<string, unknown>;
}

/** the order id of a JSON payload such as {"orderId":"A12345",…}; null when there is none */
export function businessIdOf(payload: string): string | null {
  let doc: unknown;
  try {
    doc = JSON.parse(payload);
  } catch {
    return null;
  }
  const id = doc && typeof doc === 'object' ? (doc as Record<string, unknown>).orderId : undefined;
  if (typeof id === 'string' && id.trim() !== '') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return null;
}

export function archiveRecord(letter: Letter): ArchiveRecord {
  const history = deadLetterHistory(letter.headers);
  const first = firstDeath(letter.headers);
  // the first death is the entry for x-first-death-queue/reason; the oldest entry when those are absent
  const firstEntry = history.find((e) => e.queue === first.queue && e.reason === first.reason) ?? history.at(-1);
  const last = history[0];
  const at = (t: number | null | undefined) => (t === null || t === undefined ? null : new Date(t * 1000));
  return {
    businessId: businessIdOf(letter.body),
    messageId: letter.messageId ?? null,
    payload: letter.body,
    originalExchange: first.exchange ?? firstEntry?.exchange ?? null,
    originalRoutingKey: firstEntry?.routingKeys[0] ?? null,
    firstDeathReason: first.reason ?? firstEntry?.reason ?? null,
    firstDeathQueue: first.queue ?? firstEntry?.queue ?? null,
    firstDeathAt: at(firstEntry?.time),
    lastDeathReason: last?.reason ?? null,
    lastDeathQueue: last?.queue ?? null,
    lastDeathAt: at(last?.time),
    attempts: history.reduce((sum, e) => sum + e.count, 0),
  };
}
