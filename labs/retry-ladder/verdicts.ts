/**
 * What the retry-ladder lab concludes from its observations, pure: gaps between deliveries against
 * the tiers' TTLs, where every message ended (business table, DLQ or parking), and from those the
 * summary line and checks (the format is documented in docs/labs/retry-ladder.md).
 */
import type { meta, EXHAUSTED_GAP_CHECKS } from './meta.js';
import {
  type CheckOf,
  check,
  checkAtLeast,
  checkAtMost,
  javaList,
  type DeathEntry,
  gapsMs,
} from '../../src/kit/index.js';
import type { Backoff } from './backoff.js';
import { delayAfter } from './backoff.js';
import { EVENTS, RECOVERS_ON, type EventId, type Trail } from './scenario.js';

/** every gap is at least the TTL of the tier the message waited in before that delivery */
export function gapsCoverTiers(gaps: number[], ttls: number[]): boolean {
  return (
    gaps.length === ttls.length &&
    gaps.every((g, i) => {
      const ttl = ttls[i];
      return ttl !== undefined && g >= ttl;
    })
  );
}

type Place = 'business' | 'dlq' | 'parking';

interface Placement {
  /** per expected id: its one place, 'a+b' when it is in more than one, 'nowhere' when lost */
  where: Record<string, string>;
  /** expected ids found nowhere */
  lost: number;
  /** copies beyond the first of expected ids, plus ids nobody sent */
  extra: number;
}

/** where each expected message ended, from the ids each place holds (an id may repeat) */
export function placement(expected: readonly string[], found: Record<Place, string[]>): Placement {
  const where: Record<string, string> = {};
  let lost = 0;
  let extra = 0;
  for (const id of expected) {
    const places = (Object.keys(found) as Place[]).flatMap((p) => found[p].filter((x) => x === id).map(() => p));
    where[id] = places.length ? places.join('+') : 'nowhere';
    if (places.length === 0) lost += 1;
    else extra += places.length - 1;
  }
  for (const ids of Object.values(found)) extra += ids.filter((x) => !expected.includes(x)).length;
  return { where, lost, extra };
}

export interface Observed {
  b: Backoff;
  /** the waits the options ask for, after attempts 1 … max-1 */
  expectedDelays: number[];
  trails: Record<EventId, Trail>;
  /** x-message-ttl of each delay queue a retry went to, as the broker reports it */
  ttlOf: Record<string, number>;
  rows: { eventId: string; attempt: number }[];
  /** ids held from the DLQ and the parking queue, and what was still ready there meanwhile */
  dlqIds: string[];
  parkingIds: string[];
  dlqReady: number;
  parkingReady: number;
  /** ready depth of the DLQ and the parking queue once the held messages were put back */
  dlqDepth: number;
  parkingDepth: number;
  /** ready messages left in the work queue and the delay queues */
  inFlight: number;
  parkedReason: string;
  /** the parked copy as the broker held it in the parking queue: its attempt and publisher-stamped times */
  parked: { attempt: number; deadlineAt: number; decidedAt: number } | null;
  dlqDeath: DeathEntry | null;
  facts: Record<string, unknown>;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

function derived(o: Observed) {
  // the TTL of each queue the broker says a copy expired from (x-death), for every redelivery
  const routeTtls = (id: EventId) =>
    o.trails[id].expiredFrom.slice(1).map((q) => (q === null ? NaN : (o.ttlOf[q] ?? NaN)));
  const gaps = (id: EventId) => gapsMs(o.trails[id].at);
  const placed = placement(EVENTS, { business: o.rows.map((r) => r.eventId), dlq: o.dlqIds, parking: o.parkingIds });
  return {
    routeTtls,
    gaps,
    placed,
  };
}

export function ladderLine(o: Observed): string {
  const d = derived(o);
  const t = o.trails;
  return (
    `retry-ladder: tiersMs=${javaList(d.routeTtls('exhausted'))} recoveredAttempts=${javaList(t.recovers.attempts)} ` +
    `exhaustedAttempts=${javaList(t.exhausted.attempts)} parkedAttempts=${javaList(t.parked.attempts)} parkedReason=${o.parkedReason} ` +
    `businessRows=${o.rows.length} dlq=${o.dlqDepth} parking=${o.parkingDepth} lost=${d.placed.lost}`
  );
}

const exhaustedGapCheck = (i: number) => `exhaustedGap${i + 1}Ms` as (typeof EXHAUSTED_GAP_CHECKS)[number];

export function ladderChecks(o: Observed): CheckOf<typeof meta>[] {
  const d = derived(o);
  const exhaustedGaps = d.gaps('exhausted');
  const everyGapCovered = EVENTS.every((id) => gapsCoverTiers(d.gaps(id), d.routeTtls(id)));
  const p = o.parked;
  // the park must have been the deadline's doing: at the stamped decision time, less was left than the next wait + a call
  // (without a parked message: what the scenario's park after attempt 2 needs)
  const parkedAfter = p && Number.isInteger(p.attempt) && p.attempt >= 1 ? p.attempt : 2;
  const neededMs = delayAfter(Math.min(parkedAfter, o.b.maxAttempts), o.b) + o.b.callBudgetMs;
  return [
    check('recoveredAttempts', range(RECOVERS_ON), o.trails.recovers.attempts),
    check('recoveredCommittedAttempt', RECOVERS_ON, o.rows.find((r) => r.eventId === 'recovers')?.attempt ?? null),
    check('exhaustedAttempts', range(o.b.maxAttempts), o.trails.exhausted.attempts),
    check('exhaustedTiersMs', o.expectedDelays, d.routeTtls('exhausted')),
    // one per tier: the names meta declares (nine, the default ladder's; the runner refuses a tenth)
    ...o.expectedDelays.map((ttl, i) => checkAtLeast(exhaustedGapCheck(i), ttl, exhaustedGaps[i] ?? 0)),
    check('everyGapCoversItsTier', true, everyGapCovered),
    check('parkedAttempts', [1, 2], o.trails.parked.attempts),
    checkAtMost('parkedAttemptCount', o.b.maxAttempts - 1, o.trails.parked.attempts.length),
    checkAtMost('parkedLeftMs', neededMs - 1, p ? p.deadlineAt - p.decidedAt : NaN),
    check('dlqDeathReason', 'rejected', o.dlqDeath?.reason ?? 'none'),
    check(
      'businessRows',
      ['recovers'],
      o.rows.map((r) => r.eventId),
    ),
    check('placement', { recovers: 'business', exhausted: 'dlq', parked: 'parking' }, d.placed.where),
    check('extraCopies', 0, d.placed.extra + o.dlqReady + o.parkingReady),
    check('leftInFlight', 0, o.inFlight),
    check('dlqDepth', 1, o.dlqDepth),
    check('parkingDepth', 1, o.parkingDepth),
  ];
}

export function ladderFacts(o: Observed): Record<string, unknown> {
  const d = derived(o);
  const messages = Object.fromEntries(
    EVENTS.map((id) => {
      const t = o.trails[id];
      return [
        id,
        {
          attempts: t.attempts,
          gapsMs: d.gaps(id),
          tiersMs: d.routeTtls(id),
          decisions: t.decisions,
          outcome: t.outcome ?? null,
        },
      ];
    }),
  );
  return { ...o.facts, messages, placement: d.placed, dlqDeath: o.dlqDeath };
}
