/**
 * Pure arithmetic of the requeue-storm lab: the healthy publishing schedule, rates, ratios and
 * latency percentiles. No broker, no clock: unit-tested in measure.test.ts.
 */
import { must } from '../../src/kit/index.js';

/** offsets (ms from the window start) at which healthy messages are published: a fixed rate, all inside the window */
export function healthySchedule(windowMs: number, perSec: number): number[] {
  const everyMs = 1000 / perSec;
  const count = Math.ceil(windowMs / everyMs);
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const at = Math.round(i * everyMs);
    if (at < windowMs) out.push(at);
  }
  return out;
}

/** events per second over a span, one decimal; 0 for an empty span */
export function perSecond(count: number, spanMs: number): number {
  return spanMs > 0 ? round1((count * 1000) / spanMs) : 0;
}

/** how many times more often a happens than b, one decimal; Infinity when b never happened but a did */
export function ratio(a: number, b: number): number {
  if (b > 0) return round1(a / b);
  return a > 0 ? Infinity : 0;
}

/** nearest-rank percentile (p in 0..100) of unsorted values; null when there are none */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((x, y) => x - y);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return must(sorted[Math.min(rank, sorted.length) - 1], `the ${p}th percentile of ${values.length} values`);
}

interface LatencySummary {
  count: number;
  p50Ms: number | null;
  p95Ms: number | null;
  maxMs: number | null;
}

export function latencySummary(latenciesMs: readonly number[]): LatencySummary {
  const r = (v: number | null) => (v === null ? null : round1(v));
  return {
    count: latenciesMs.length,
    p50Ms: r(percentile(latenciesMs, 50)),
    p95Ms: r(percentile(latenciesMs, 95)),
    maxMs: r(percentile(latenciesMs, 100)),
  };
}

export const round1 = (v: number): number => Math.round(v * 10) / 10;
