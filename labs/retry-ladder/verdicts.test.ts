import { describe, expect, it } from 'vitest';
import { gapsCoverTiers, placement } from './verdicts.js';
import { gapsMs as gapsOf } from '../../src/time.js';

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
