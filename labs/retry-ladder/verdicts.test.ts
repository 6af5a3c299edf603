import { describe, expect, it } from 'vitest';
import { gapsCoverTiers, ladderChecks, placement, type Observed } from './verdicts.js';
import { gapsMs as gapsOf } from '../../src/core/time.js';
import { evaluate } from '../../src/report/checks.js';
import type { Trail } from './scenario.js';

describe('gaps between deliveries', () => {
  it('are the rounded differences of delivery times', () => {
    expect(gapsOf([10, 214.6, 617.2, 1422])).toEqual([205, 403, 805]);
    expect(gapsOf([5])).toEqual([]);
  });

  it('cover their tiers only when every gap reaches its TTL', () => {
    expect(gapsCoverTiers([205, 403, 805], [200, 400, 800])).toBe(true);
    expect(gapsCoverTiers([205, 399, 805], [200, 400, 800])).toBe(false);
    expect(gapsCoverTiers([205, 403], [200, 400, 800])).toBe(false);
  });
});

describe('placement: every message in exactly one place', () => {
  const ids = ['recovers', 'exhausted', 'parked'] as const;

  it('names each message’s one place', () => {
    const p = placement(ids, { business: ['recovers'], dlq: ['exhausted'], parking: ['parked'] });
    expect(p).toEqual({ where: { recovers: 'business', exhausted: 'dlq', parked: 'parking' }, lost: 0, extra: 0 });
  });

  it('reports a lost message as nowhere', () => {
    const p = placement(ids, { business: ['recovers'], dlq: [], parking: ['parked'] });
    expect(p.where.exhausted).toBe('nowhere');
    expect(p.lost).toBe(1);
  });

  it('reports a message in two places, a duplicate and a stranger as extra copies', () => {
    const p = placement(ids, {
      business: ['recovers', 'parked'],
      dlq: ['exhausted', 'exhausted', 'stale'],
      parking: ['parked'],
    });
    expect(p.where).toEqual({ recovers: 'business', exhausted: 'dlq+dlq', parked: 'business+parking' });
    expect(p.extra).toBe(3);
    expect(p.lost).toBe(0);
  });
});

const b = { baseMs: 200, maxDelayMs: 800, maxAttempts: 4, callBudgetMs: 100 };
const q = (ttl: number) => `me12.ladder.delay.${ttl}ms`;
const trail = (
  attempts: number[],
  at: number[],
  expiredFrom: (string | null)[],
  outcome: NonNullable<Trail['outcome']>,
): Trail => ({
  attempts,
  at,
  expiredFrom,
  route: [],
  decisions: [],
  outcome,
});

function observed(over: Partial<Observed> = {}): Observed {
  return {
    b,
    expectedDelays: [200, 400, 800],
    trails: {
      recovers: trail([1, 2, 3], [0, 210, 620], [null, q(200), q(400)], 'business'),
      exhausted: trail([1, 2, 3, 4], [0, 210, 620, 1430], [null, q(200), q(400), q(800)], 'dlq'),
      parked: trail([1, 2], [0, 210], [null, q(200)], 'parking'),
    },
    ttlOf: { [q(200)]: 200, [q(400)]: 400, [q(800)]: 800 },
    rows: [{ eventId: 'recovers', attempt: 3 }],
    dlqIds: ['exhausted'],
    parkingIds: ['parked'],
    dlqReady: 0,
    parkingReady: 0,
    dlqDepth: 1,
    parkingDepth: 1,
    inFlight: 0,
    parkedReason: 'deadline',
    parked: { attempt: 2, deadlineAt: 10_500, decidedAt: 10_210 },
    dlqDeath: {
      queue: 'me12.ladder.work',
      reason: 'rejected',
      count: 1,
      exchange: '',
      routingKeys: [],
      time: null,
      originalExpiration: null,
    },
    facts: {},
    ...over,
  };
}

const verdict = (o: Observed) => Object.fromEntries(ladderChecks(o).map((c) => [c.name, evaluate(c).pass]));

describe('retry-ladder checks', () => {
  it('all pass on a run that went as planned', () => {
    expect(Object.values(verdict(observed())).every(Boolean)).toBe(true);
  });

  it('read the tiers from the queues x-death names, not from where the lab meant to send a copy', () => {
    const o = observed();
    o.trails.exhausted.expiredFrom = [null, q(200), q(200), q(200)]; // every copy waited in the first tier
    expect(verdict(o)).toMatchObject({ exhaustedTiersMs: false, exhaustedGap2Ms: true });
    o.trails.exhausted.expiredFrom = [null, null, null, null]; // no copy waited in any tier
    expect(verdict(o)).toMatchObject({ exhaustedTiersMs: false, everyGapCoversItsTier: false });
  });

  it('parkedLeftMs: a park needs less left than the next wait + a call, and a parked message at all', () => {
    expect(verdict(observed({ parked: { attempt: 2, deadlineAt: 10_500, decidedAt: 10_000 } })).parkedLeftMs).toBe(
      false,
    ); // 500 ≥ 400 + 100
    expect(verdict(observed({ parked: { attempt: 2, deadlineAt: 10_500, decidedAt: 10_001 } })).parkedLeftMs).toBe(
      true,
    );
    expect(verdict(observed({ parked: null })).parkedLeftMs).toBe(false);
  });
});
