import { describe, expect, it } from 'vitest';
import { healthySchedule, latencySummary, percentile, perSecond, ratio } from './measure.js';
import { gapsMs as gaps } from '../../src/core/time.js';

describe('healthySchedule', () => {
  it('publishes at a fixed rate, every offset inside the window', () => {
    expect(healthySchedule(100, 50)).toEqual([0, 20, 40, 60, 80]);
    expect(healthySchedule(1500, 50)).toHaveLength(75);
    expect(healthySchedule(1500, 50).at(-1)).toBe(1480);
  });
  it('rounds fractional intervals and never reaches the window end', () => {
    const s = healthySchedule(1000, 30);
    expect(s).toHaveLength(30);
    expect(s.slice(0, 4)).toEqual([0, 33, 67, 100]);
    expect(Math.max(...s)).toBeLessThan(1000);
  });
});

describe('perSecond', () => {
  it('scales a count over a span to one second, one decimal', () => {
    expect(perSecond(2262, 1500)).toBe(1508);
    expect(perSecond(2, 1501)).toBe(1.3);
    expect(perSecond(3, 2000)).toBe(1.5);
  });
  it('is 0 for an empty span', () => {
    expect(perSecond(5, 0)).toBe(0);
  });
});

describe('ratio', () => {
  it('divides, one decimal', () => {
    expect(ratio(1508, 1.3)).toBe(1160);
    expect(ratio(26, 1.3)).toBe(20);
  });
  it('is Infinity when only the first happened, 0 when neither did', () => {
    expect(ratio(10, 0)).toBe(Infinity);
    expect(ratio(0, 0)).toBe(0);
  });
});

describe('percentile (nearest rank)', () => {
  const v = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
  it('sorts a copy and picks the nearest rank', () => {
    expect(percentile(v, 50)).toBe(5);
    expect(percentile(v, 95)).toBe(10);
    expect(percentile(v, 100)).toBe(10);
    expect(percentile(v, 0)).toBe(1);
    expect(v[0]).toBe(5); // input untouched
  });
  it('handles one value and none', () => {
    expect(percentile([7.5], 50)).toBe(7.5);
    expect(percentile([], 50)).toBeNull();
  });
});

describe('latencySummary', () => {
  it('gives count, p50, p95 and max rounded to 0.1 ms', () => {
    expect(latencySummary([1.04, 2.26, 3, 800.55])).toEqual({ count: 4, p50Ms: 2.3, p95Ms: 800.6, maxMs: 800.6 });
    expect(latencySummary([])).toEqual({ count: 0, p50Ms: null, p95Ms: null, maxMs: null });
  });
});

describe('gaps', () => {
  it('is the whole-ms distance between consecutive instants', () => {
    expect(gaps([10, 513.4, 1017.9])).toEqual([503, 505]);
    expect(gaps([1])).toEqual([]);
  });
});
