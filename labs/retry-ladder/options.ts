/**
 * The retry-ladder lab's options: flags for the registry (parsed one by one, bad input is a
 * UsageError) and `ladderOptions`, which applies the defaults (`mqlab all` passes none) and the
 * rules that involve two options. Kept free of broker code: the registry imports it.
 */
import type { LabOption } from '../../src/lab.js';
import { UsageError } from '../../src/errors.js';
import type { Backoff } from './backoff.js';

export const DEFAULTS: Backoff = { baseMs: 200, maxDelayMs: 800, maxAttempts: 4, callBudgetMs: 100 };

const LIMITS: Record<keyof Backoff, { flag: string; min: number; max: number }> = {
  baseMs: { flag: '--base-ms', min: 10, max: 60_000 },
  maxDelayMs: { flag: '--max-delay-ms', min: 10, max: 60_000 },
  // 3: the scenario needs a message that recovers on attempt 3 and one parked before the last attempt
  maxAttempts: { flag: '--max-attempts', min: 3, max: 10 },
  callBudgetMs: { flag: '--call-budget-ms', min: 0, max: 60_000 },
};

export function parseOption(key: keyof Backoff, raw: unknown): number {
  const { flag, min, max } = LIMITS[key];
  const text = String(raw).trim();
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got '${raw}'`);
  return n;
}

const option = (key: keyof Backoff, arg: string, description: string): LabOption => ({
  flags: `${LIMITS[key].flag} <${arg}>`,
  description,
  default: DEFAULTS[key],
  parse: (raw) => parseOption(key, raw),
});

export const ladderFlags: LabOption[] = [
  option('baseMs', 'ms', 'd: the first tier, the wait after attempt 1 (tier n waits min(max-delay, d × 2^(n-1)))'),
  option('maxDelayMs', 'ms', 'the cap on a tier’s wait'),
  option('maxAttempts', 'n', 'attempts in all, the first included (3-10)'),
  option('callBudgetMs', 'ms', 'time one call may take: a retry needs the next wait plus this before the deadline'),
];

/** the options a run uses: given values validated, the rest defaulted */
export function ladderOptions(raw: Record<string, unknown> = {}): Backoff {
  const pick = (key: keyof Backoff) => (raw[key] === undefined ? DEFAULTS[key] : parseOption(key, raw[key]));
  const b: Backoff = { baseMs: pick('baseMs'), maxDelayMs: pick('maxDelayMs'), maxAttempts: pick('maxAttempts'), callBudgetMs: pick('callBudgetMs') };
  if (b.maxDelayMs < b.baseMs)
    throw new UsageError(`--max-delay-ms (${b.maxDelayMs}) must be at least --base-ms (${b.baseMs}): the cap would flatten every tier`);
  return b;
}
