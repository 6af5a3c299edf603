/**
 * The hold lab's pure judgements: how the delivered letter's headers tell a broker dead-lettering
 * from an application republish, and the source queue's checks, decided after the experiment from
 * what the readings of the source showed (stats-watch.ts). Unit-tested in verdicts.test.ts and hold.test.ts.
 *
 * The policy is read from the queue's record: PASS or FAIL. A count claim is PASS/FAIL when the
 * quorum queue's counters refreshed in time to show it, and SKIP with the reason only when the
 * broker itself proved the hold (this run's letter reached the target, dead-lettered from the source
 * by the broker) while the counters still showed an older state.
 */
import { check, skipCheck, type Check } from '../../src/report/checks.js';
import type { QueueStats } from '../../src/broker/management.js';
import { heldLetters, statsLine } from '../../src/broker/dead-letter.js';
import { deadLetterHistory, firstDeath, type DeathEntry } from '../../src/broker/xdeath.js';
import type { Sample } from './stats-watch.js';

export const HELD_LINE = 'messages=1 ready=0 unacked=0';
export const EMPTY_LINE = 'messages=0 ready=0 unacked=0';

const SLOW =
  "they refresh on the quorum queue's tick (quorum_tick_interval: 5 s on an untuned broker, 1 s on mqlab's services)";

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

export interface StatsSeen {
  source: string;
  policy: string;
  /** every sample, read from the rejection on */
  samples: readonly Sample[];
  rejectedAt: number;
  /** at the start the counters still showed letters an earlier run left held (already dropped with its policy) */
  staleAtStart: boolean;
  /** this run's letter reached the target from the broker's dead-lettering (x-death of the source) */
  brokerDelivered: boolean;
  /** when it did (ctx.now()), or null */
  deliveredAt: number | null;
}

/**
 * The first sample after the rejection that shows a letter held in the source; when the counters
 * still showed an earlier run's held letters at the start, only after a sample has shown none.
 */
export function heldSample(s: StatsSeen): Sample | undefined {
  const fresh = s.staleAtStart ? (s.samples.find((x) => heldLetters(x.stats) === 0)?.at ?? Infinity) : -Infinity;
  return s.samples.find((x) => x.at >= s.rejectedAt && x.at > fresh && heldLetters(x.stats) >= 1);
}

/** the first sample after `held` that shows the source with no letter */
export const emptyAfter = (s: StatsSeen, held: Sample | undefined): Sample | undefined =>
  held && s.samples.find((x) => x.at > held.at && x.stats.messages === 0);

/**
 * How long to wait for the empty sample after the letter reached the target: as long as the
 * counters needed to show the held letter, plus a margin; 0 when they never showed it or needed
 * more than `capMs` (the lab's window) for it (an untuned broker): then waiting would only add
 * their refresh time to the lab's, and sourceAfter says SKIP.
 */
export function emptyGraceMs(s: StatsSeen, capMs: number, marginMs = 1000): number {
  const held = heldSample(s);
  if (!held) return 0;
  const lag = held.at - s.rejectedAt;
  return lag <= capMs ? lag + marginMs : 0;
}

export function sourceWhileHeld(s: StatsSeen): Check {
  const held = heldSample(s);
  if (held) return check('sourceWhileHeld', HELD_LINE, statsLine(held.stats));
  if (s.brokerDelivered && s.deliveredAt !== null) {
    return skipCheck(
      'sourceWhileHeld',
      HELD_LINE,
      `the counters of ${s.source} showed no held letter in the ${Math.round(s.deliveredAt - s.rejectedAt)} ms the broker held it: ${SLOW}; targetEmpty and the broker's x-death on the recovered letter show the hold`,
    );
  }
  return check('sourceWhileHeld', HELD_LINE, statsLine(lastStats(s)));
}

/**
 * The policy in force on the source, from its queue record (read at once, never an older state): a
 * reading during the run that shows this run's policy, else the last reading's.
 */
export function policyOnSource(s: StatsSeen): Check {
  const shown = s.samples.find((x) => x.stats.policy === s.policy);
  return check('policyOnSource', s.policy, (shown ?? s.samples.at(-1))?.stats.policy ?? null);
}

export function sourceAfter(s: StatsSeen): Check {
  const held = heldSample(s);
  const empty = emptyAfter(s, held);
  if (empty) return check('sourceAfter', EMPTY_LINE, statsLine(empty.stats));
  if (s.brokerDelivered) {
    const why = held
      ? 'did not refresh after the letter left it within the wait'
      : 'never showed the held letter, so a sample of it empty could be one from before the rejection';
    return skipCheck(
      'sourceAfter',
      EMPTY_LINE,
      `the counters of ${s.source} ${why}: ${SLOW}; this run's letter reached the target`,
    );
  }
  return check('sourceAfter', EMPTY_LINE, statsLine(lastStats(s)));
}

/** the policy may go when the counters showed the source empty after the hold, or when this run's letter has left it */
export const mayClearPolicy = (s: StatsSeen): boolean =>
  s.brokerDelivered ||
  emptyAfter(s, heldSample(s)) !== undefined ||
  (lastStats(s)?.messages === 0 && heldSample(s) === undefined);

function lastStats(s: StatsSeen): QueueStats | null {
  return s.samples.at(-1)?.stats ?? null;
}
