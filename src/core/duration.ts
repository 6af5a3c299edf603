/** Durations as people write them on a command line: 500ms, 2s, 90m, 12h, 30d. */
import { UsageError } from './errors.js';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export type DurationUnit = keyof typeof UNIT_MS;

const EXAMPLES = 'e.g. 500ms, 2s, 90m, 12h, 30d';

/**
 * '30d' → 2592000000 ms. A bare number is read in `bare` when given (so an old flag that took
 * seconds or milliseconds keeps its unit), else refused. Fractions must come to whole milliseconds.
 */
export function parseDuration(raw: string, bare?: DurationUnit): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(raw.trim());
  const unit = (m?.[2] as DurationUnit | undefined) ?? bare;
  const ms = m && unit ? Number(m[1]) * UNIT_MS[unit] : NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    const form = bare ? `a number of ${bare} or a number and a unit` : 'a number and a unit';
    throw new UsageError(`invalid duration '${raw}'`, `use ${form} > 0: ms, s, m, h or d (${EXAMPLES})`);
  }
  return ms;
}

/** the other way round, in the largest unit that divides evenly: 2592000000 → '30d', 1500 → '1500ms' */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms >= UNIT_MS[unit] && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}
