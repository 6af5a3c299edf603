/**
 * Pure pieces of the `hold` lab: how to read a held letter from the management statistics, and
 * how to tell a broker dead-lettering from an application republish by the headers of the
 * delivered message (its names and policy are in names.ts).
 */
import type { QueueStats } from '../../src/broker/management.js';
import { deadLetterHistory, firstDeath, type DeathEntry } from '../../src/broker/xdeath.js';

export const EVENT_ID = 'held-event';
export const BODY = 'payload';
/** the header that ties a delivered letter to the run that published it */
export const RUN_HEADER = 'mqlab-run';

/** a policy as one comparable value: pattern, apply-to, then the definition sorted by key */
export function policyLine(p: { pattern: string; applyTo: string; definition: Record<string, unknown> }): string {
  const def = Object.keys(p.definition)
    .sort()
    .map((k) => `${k}=${String(p.definition[k])}`);
  return [`pattern=${p.pattern}`, `apply-to=${p.applyTo}`, ...def].join(' ');
}

/**
 * Letters the source keeps for its dead-letter worker. They count in `messages` but in neither
 * `ready` nor `unacked`: adding those two would say the queue is empty.
 */
export function heldLetters(s: Pick<QueueStats, 'messages' | 'ready' | 'unacked'>): number {
  return s.messages - s.ready - s.unacked;
}

/** the seed's list_queues columns, as one value: messages=1 ready=0 unacked=0 */
export function statsLine(s: Pick<QueueStats, 'messages' | 'ready' | 'unacked'> | null): string {
  return s ? `messages=${s.messages} ready=${s.ready} unacked=${s.unacked}` : 'no statistics';
}

export interface RepublishEvidence {
  /** the x-death entry the broker wrote when it dead-lettered the letter from the source */
  death: DeathEntry | null;
  firstDeathQueue: string | null;
  firstDeathReason: string | null;
  /** the broker dead-lettered this very message from the source, once, for a rejection */
  deadLetteredByBroker: boolean;
}

/**
 * What the delivered message's headers say about how it reached the target. The broker stamps
 * x-death (queue, reason, count) and x-first-death-* when it dead-letters; a message that the
 * application published itself to the DLX carries none of them (unless it copied them).
 */
export function republishEvidence(headers: Record<string, unknown>, source: string): RepublishEvidence {
  const death = deadLetterHistory(headers).find((e) => e.queue === source && e.reason === 'rejected') ?? null;
  const first = firstDeath(headers);
  return {
    death,
    firstDeathQueue: first.queue,
    firstDeathReason: first.reason,
    deadLetteredByBroker: death !== null && death.count === 1 && first.queue === source && first.reason === 'rejected',
  };
}
