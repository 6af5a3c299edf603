/**
 * The retry-ladder scenario: three messages, what their downstream call does on each attempt,
 * and the deadline each one carries.
 */
import { parkOnSecondFailureDeadlineMs, roomyDeadlineMs, type Backoff } from './backoff.js';

export const EVENTS = ['recovers', 'exhausted', 'parked'] as const;
export type EventId = (typeof EVENTS)[number];

/** the attempt on which `recovers` succeeds; the others never do */
export const RECOVERS_ON = 3;

export const isEvent = (id: string | undefined): id is EventId => (EVENTS as readonly string[]).includes(id ?? '');

export const callSucceeds = (id: EventId, attempt: number) => id === 'recovers' && attempt >= RECOVERS_ON;

/** ms from publishing to the deadline: only `parked` gets one short enough to bind */
export function deadlineInMs(id: EventId, b: Backoff): number {
  return id === 'parked' ? parkOnSecondFailureDeadlineMs(b) : roomyDeadlineMs(b);
}

/** what the consumer saw of one message */
export interface Trail {
  attempts: number[];
  /** ctx.now() at each delivery */
  at: number[];
  /** per delivery, the queue the broker's x-death says the copy expired from (null: none) */
  expiredFrom: (string | null)[];
  /** the delay queue each retry waited in, in order */
  route: string[];
  decisions: string[];
  outcome?: 'business' | 'dlq' | 'parking';
}
