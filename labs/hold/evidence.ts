/**
 * Pure pieces of the `hold` lab: how to read a held letter from the management statistics, and
 * how to tell a broker dead-lettering from an application republish by the headers of the
 * delivered message (its names and policy are in names.ts).
 */
import { heldLetters, policyLine, statsLine } from '../../src/broker/dead-letter.js';
import { deadLetterHistory, firstDeath, type DeathEntry } from '../../src/broker/xdeath.js';

export const EVENT_ID = 'held-event';
export const BODY = 'payload';
/** the header that ties a delivered letter to the run that published it */
export const RUN_HEADER = 'mqlab-run';

/** shared with the other dead-letter labs (src/broker/dead-letter.ts) */
export { heldLetters, policyLine, statsLine };

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
