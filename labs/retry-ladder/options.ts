/** The retry-ladder lab's options: the typed object its code gets, and the flags it is parsed from. */
import { UsageError, duration, integer, type OptionSpecs } from '../../src/kit/index.js';
import type { Backoff } from './backoff.js';

/** the waits; a bare number is ms, as the old --base-ms, --max-delay-ms and --call-budget-ms took */
const ms = (min: number) => duration({ min, max: 60_000, bare: 'ms' });

export const options: OptionSpecs<Backoff> = {
  baseMs: {
    flag: '--base <duration>',
    description: 'd: the first tier, the wait after attempt 1 (tier n waits min(max-delay, d × 2^(n-1)))',
    default: '200ms',
    aliases: ['--base-ms'],
    parse: ms(10),
  },
  maxDelayMs: {
    flag: '--max-delay <duration>',
    description: 'the cap on a tier’s wait',
    default: '800ms',
    aliases: ['--max-delay-ms'],
    parse: ms(10),
  },
  // 3: the scenario needs a message that recovers on attempt 3 and one parked before the last attempt
  maxAttempts: {
    flag: '--max-attempts <n>',
    description: 'attempts in all, the first included (3-10)',
    default: '4',
    parse: integer(3, 10),
  },
  callBudgetMs: {
    flag: '--call-budget <duration>',
    description: 'time one call may take: a retry needs the next wait plus this before the deadline',
    default: '100ms',
    aliases: ['--call-budget-ms'],
    parse: ms(0),
  },
};

/** the rule that involves two options */
export function validate(b: Backoff): void {
  if (b.maxDelayMs < b.baseMs)
    throw new UsageError(
      `--max-delay (${b.maxDelayMs}ms) must be at least --base (${b.baseMs}ms): the cap would flatten every tier`,
    );
}
