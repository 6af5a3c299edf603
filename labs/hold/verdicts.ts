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
import type { meta } from './meta.js';
import {
  check,
  skipCheck,
  type CheckOf,
  type QueueStats,
  heldLetters,
  statsLine,
  deadLetterHistory,
  firstDeath,
  type DeathEntry,
} from '../../src/kit/index.js';
import type { Sample } from './stats-watch.js';

const HELD_LINE = 'messages=1 ready=0 unacked=0';
const EMPTY_LINE = 'messages=0 ready=0 unacked=0';

const SLOW =
  "they refresh on the quorum queue's tick (quorum_tick_interval: 5 s on an untuned broker, 1 s on mqlab's services)";

interface RepublishEvidence {
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
  /**
   * every reading of the source, one after another, from before this run's policy (an earlier run's
   * policy cleared already, and with it any letter that run still held) to the end of the run
   */
  samples: readonly Sample[];
  rejectedAt: number;
  /** this run's letter reached the target from the broker's dead-lettering (x-death of the source) */
  brokerDelivered: boolean;
  /** when it did (ctx.now()), or null */
  deliveredAt: number | null;
  /** how long the lab waited after the delivery for a reading of the source empty (emptyGraceMs) */
  emptyWaitMs: number;
}

/**
 * The index of the first reading that shows no held letter. A reading shows the counters of the
 * queue's latest tick, and the readings come one after another, so a later one never shows an older
 * tick: a held letter in a reading after this one was held at a tick after the watch began, when no
 * earlier run's letter was held any more. Before it, the counters may still show a letter an earlier
 * run left held (they keep it until the queue's next tick), which must never pass for this run's.
 */
function clearIndex(s: StatsSeen): number {
  return s.samples.findIndex((x) => heldLetters(x.stats) === 0);
}

/** the readings that can show this run's letter: from the first one that showed none held */
function fresh(s: StatsSeen): readonly Sample[] {
  const i = clearIndex(s);
  return i < 0 ? [] : s.samples.slice(i);
}

/** the first reading after the rejection that shows a letter held in the source, and can only be this run's */
export function heldSample(s: StatsSeen): Sample | undefined {
  return fresh(s).find((x) => x.at >= s.rejectedAt && heldLetters(x.stats) >= 1);
}

/** the first sample after `held` that shows the source with no letter */
export const emptyAfter = (s: StatsSeen, held: Sample | undefined): Sample | undefined =>
  held && s.samples.find((x) => x.at > held.at && x.stats.messages === 0);

/**
 * How long to wait, after the letter reached the target, for a reading of the source empty: as
 * long as the counters needed to show the held letter after the rejection, plus a margin. On the lines
 * mqlab runs, the worker's timer is a whole number of the queue's ticks (1 s and 1 s on mqlab's
 * services, 5 s and 5 s on the seed's broker), so the tick after the delivery comes about as long
 * after it as the first tick came after the rejection. 0, no wait, when the counters never showed this
 * run's held letter (a reading of the source empty could then be one from before the rejection) or
 * took longer than `capMs` (the lab's window) to show it: a broker whose counters are that slow would
 * only add their refresh to the run, and sourceAfter says SKIP.
 */
export function emptyGraceMs(s: StatsSeen, capMs: number, marginMs = 1000): number {
  const held = heldSample(s);
  if (!held) return 0;
  const lag = held.at - s.rejectedAt;
  return lag <= capMs ? lag + marginMs : 0;
}

export function sourceWhileHeld(s: StatsSeen): CheckOf<typeof meta> {
  const held = heldSample(s);
  if (held) return check('sourceWhileHeld', HELD_LINE, statsLine(held.stats));
  if (s.brokerDelivered && s.deliveredAt !== null) {
    const i = clearIndex(s);
    const first = s.samples[0];
    const why = !first
      ? 'gave no reading'
      : i >= 0 && s.samples[i]!.at <= s.deliveredAt
        ? `showed no held letter in the ${Math.round(s.deliveredAt - s.rejectedAt)} ms the broker held it`
        : first.at < s.rejectedAt
          ? `showed ${heldLetters(first.stats)} held letter(s) already before the rejection (an earlier run's: they keep it until the queue's next tick) and none gone before this run's letter left, so a reading of a held letter could be that run's`
          : "gave no reading before the rejection, and none without a held letter before this run's letter left, so a reading of a held letter could be an earlier run's";
    return skipCheck(
      'sourceWhileHeld',
      HELD_LINE,
      `the counters of ${s.source} ${why}: ${SLOW}; targetEmpty and the broker's x-death on the recovered letter show the hold`,
    );
  }
  const last = fresh(s).at(-1);
  return check(
    'sourceWhileHeld',
    HELD_LINE,
    last
      ? statsLine(last.stats)
      : `no reading after an earlier run's letter left the counters (${statsLine(lastStats(s))})`,
  );
}

/**
 * The policy in force on the source, from its queue record (read at once, never an older state): a
 * reading during the run that shows this run's policy, else the last reading's.
 */
export function policyOnSource(s: StatsSeen): CheckOf<typeof meta> {
  const shown = s.samples.find((x) => x.stats.policy === s.policy);
  return check('policyOnSource', s.policy, (shown ?? s.samples.at(-1))?.stats.policy ?? null);
}

export function sourceAfter(s: StatsSeen): CheckOf<typeof meta> {
  const held = heldSample(s);
  const empty = emptyAfter(s, held);
  if (empty) return check('sourceAfter', EMPTY_LINE, statsLine(empty.stats));
  if (s.brokerDelivered) {
    const why = !held
      ? "never showed this run's held letter, so a reading of it empty could be one from before the rejection"
      : s.emptyWaitMs > 0
        ? `did not refresh within the ${Math.round(s.emptyWaitMs)} ms the lab waited after the letter left it`
        : `showed the held letter only ${Math.round(held.at - s.rejectedAt)} ms after the rejection, later than the window: the lab did not wait for another refresh`;
    return skipCheck(
      'sourceAfter',
      EMPTY_LINE,
      `the counters of ${s.source} ${why}: ${SLOW}; this run's letter reached the target`,
    );
  }
  return check('sourceAfter', EMPTY_LINE, statsLine(lastStats(s)));
}

/**
 * How long after the delivery the counters still showed the letter held, in a run that then saw
 * them empty: the queue's tick that emptied them came later, so the run sat out at least this much of
 * it (0 when the first reading after the delivery was the empty one). null when they never showed it
 * empty after the hold (sourceAfter is not PASS): no wait of the experiment's own.
 */
export function heldAfterDeliveryMs(s: StatsSeen): number | null {
  const empty = emptyAfter(s, heldSample(s));
  const deliveredAt = s.deliveredAt;
  if (!empty || deliveredAt === null) return null;
  const last = s.samples.filter((x) => x.at > deliveredAt && x.at < empty.at && heldLetters(x.stats) >= 1).at(-1);
  return last ? Math.round(last.at - deliveredAt) : 0;
}

/** the policy may go when the counters showed the source empty after the hold, or when this run's letter has left it */
export const mayClearPolicy = (s: StatsSeen): boolean =>
  s.brokerDelivered ||
  emptyAfter(s, heldSample(s)) !== undefined ||
  (lastStats(s)?.messages === 0 && heldSample(s) === undefined);

function lastStats(s: StatsSeen): QueueStats | null {
  return s.samples.at(-1)?.stats ?? null;
}
