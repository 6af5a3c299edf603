/**
 * What the lab reads out of its processes' events (pure, unit-tested): how often a status was
 * reported, and the poison message's trail — attempts, the gaps between them, its x-death.
 */
import { type LabEvent, gapsMs, must } from '../../src/kit/index.js';
import { parseDeathSummary, type DeathSummaryEntry } from './attempt.js';

export function countStatus(events: LabEvent[], source: string, status: string, messageId?: string): number {
  return events.filter(
    (e) =>
      e.source === source &&
      e.fields.status === status &&
      (messageId === undefined || e.fields.messageId === messageId),
  ).length;
}

interface Trail {
  /** attempt numbers the consumer computed, in delivery order */
  attempts: number[];
  /** ms between consecutive deliveries (each includes one TTL hop through the retry queue) */
  gapsMs: number[];
  /** the x-death the broker delivered with each attempt, newest entry first */
  deaths: DeathSummaryEntry[][];
}

export function trailOf(events: LabEvent[], messageId: string): Trail {
  const received = events.filter(
    (e) => e.source === 'consumer' && e.fields.status === 'received' && e.fields.messageId === messageId,
  );
  const at = received.map((e) =>
    Date.parse(must(e.fields.timestamp, `the timestamp of a consumer line of ${messageId}`)),
  );
  return {
    attempts: received.map((e) => Number(e.fields.attempt)),
    gapsMs: gapsMs(at),
    deaths: received.map((e) => parseDeathSummary(e.fields.xDeath)),
  };
}
