/** Durations as people write them on a command line: 30d, 12h, 90m, 45s. */
import { UsageError } from './errors.js';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** '30d' → 2592000000 ms; anything else (no unit, zero, fractions, unknown units) → UsageError */
export function parseDuration(raw: string): number {
  const m = /^(\d+)([smhd])$/.exec(raw.trim());
  const ms = m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : NaN;
  if (!m || !Number.isSafeInteger(ms) || ms <= 0) {
    throw new UsageError(`invalid duration '${raw}'`, 'use a whole number > 0 and a unit: s, m, h or d (e.g. 30d, 12h, 90m, 45s)');
  }
  return ms;
}

/** the other way round, in the largest unit that divides evenly: 2592000000 → '30d', 5400000 → '90m' */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms >= UNIT_MS[unit] && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}
