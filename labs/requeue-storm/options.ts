/**
 * Option parsers of the requeue-storm lab. Imported by the registry (metadata only), so it stays
 * tiny and loads nothing else.
 */
import { UsageError } from '../../src/errors.js';

export const WINDOW_MS = { default: 1500, min: 1000, max: 30_000 };
export const PREFETCH = { default: 1, min: 1, max: 1000 };

function integerIn(flag: string, raw: string, min: number, max: number, unit = ''): number {
  const v = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(v) || v < min || v > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}${unit}, got '${raw}'`);
  }
  return v;
}

/** --window-ms: how long each mode runs; at least two delay-queue TTLs so the delayed mode redelivers */
export const parseWindowMs = (raw: string): number => integerIn('--window-ms', raw, WINDOW_MS.min, WINDOW_MS.max, ' ms');

/** --prefetch: unacked deliveries the consumer may hold (1, the default, lets the storm hold the consumer) */
export const parsePrefetch = (raw: string): number => integerIn('--prefetch', raw, PREFETCH.min, PREFETCH.max);
