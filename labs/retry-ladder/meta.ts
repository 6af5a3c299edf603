/** The retry-ladder lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/lab.js';
import { UsageError } from '../../src/errors.js';
import { duration, integer, parseOptions, type OptionSpecs } from '../../src/options.js';
import { ladderFloorMs, type Backoff } from './backoff.js';

/** the waits; a bare number is ms, as the old --base-ms, --max-delay-ms and --call-budget-ms took */
const ms = (min: number) => duration({ min, max: 60_000, bare: 'ms' });

const options: OptionSpecs<Backoff> = {
  baseMs: {
    flag: '--base <duration>',
    description: 'd: the first tier, the wait after attempt 1 (tier n waits min(max-delay, d × 2^(n-1)))',
    default: '200ms',
    aliases: ['--base-ms'],
    parse: ms(10),
  },
  maxDelayMs: { flag: '--max-delay <duration>', description: 'the cap on a tier’s wait', default: '800ms', aliases: ['--max-delay-ms'], parse: ms(10) },
  // 3: the scenario needs a message that recovers on attempt 3 and one parked before the last attempt
  maxAttempts: { flag: '--max-attempts <n>', description: 'attempts in all, the first included (3-10)', default: '4', parse: integer(3, 10) },
  callBudgetMs: {
    flag: '--call-budget <duration>',
    description: 'time one call may take: a retry needs the next wait plus this before the deadline',
    default: '100ms',
    aliases: ['--call-budget-ms'],
    parse: ms(0),
  },
};

/** the rule that involves two options */
function validate(b: Backoff): void {
  if (b.maxDelayMs < b.baseMs) throw new UsageError(`--max-delay (${b.maxDelayMs}ms) must be at least --base (${b.baseMs}ms): the cap would flatten every tier`);
}

export const meta = defineLab<Backoff>({
  name: 'retry-ladder',
  title: 'tiered TTL delay queues, exponential backoff and a deadline that wins over the count',
  proves:
    'Retries climb a ladder of delay queues, one fixed TTL each (200/400/800 ms by default: ' +
    'min(max-delay, d × 2^(n-1))), with the attempt in the application’s own header; observed gaps between ' +
    'deliveries are at least each tier’s TTL and grow tier by tier. A message that recovers on attempt 3 ' +
    'makes one business row; one that never recovers makes exactly max-attempts attempts and is rejected ' +
    'into the DLQ; one whose deadline cannot cover the next wait plus a call is parked, reason in a header, ' +
    'after fewer attempts. Every message ends in exactly one place: business table, DLQ or parking queue.',
  floorMs: ladderFloorMs(parseOptions(options)),
  options,
  validate,
  checkpoints: ['settled'],
  load: () => import('./lab.js'),
});
