/** The options of the two producers a leader-stream lab runs (leader-stream.ts): their pace, window and confirm deadline. */
import { duration, integer, type OptionSpec, type OptionSpecs } from '../../core/options.js';
import { NET_TICKTIME_S } from '../../core/defaults.js';

export interface StreamProducerOptions {
  /** publishes per second of each producer */
  rate: number;
  /** publishes awaiting their confirm at once, per producer */
  window: number;
  /** a publish with no confirm after this long is recorded as timed out */
  confirmTimeoutMs: number;
}

export const streamProducerOptions: OptionSpecs<StreamProducerOptions> = {
  rate: {
    flag: '--rate <n>',
    description: 'publishes per second of each of the two producers',
    default: '50',
    parse: integer(1, 1000),
  },
  window: {
    flag: '--window <n>',
    description: 'publishes awaiting their confirm at once, per producer',
    default: '50',
    parse: integer(1, 5000),
  },
  confirmTimeoutMs: {
    flag: '--confirm-timeout <duration>',
    description: 'a publish with no confirm after this long is recorded as timed out (its confirm may still come)',
    default: '3s',
    parse: duration({ min: 100, max: 120_000, bare: 's' }),
  },
};

/**
 * `--election-bound`: the check on the time from the fault (`what`: "cut", "pause") to the majority
 * producer's first confirm of a publish sent after it. Its default is 2 × net_ticktime: the slowest
 * detector, the distribution's, gives a silent peer up by 1.25 × net_ticktime (12.5 s); then an
 * election and the first confirm. Measured by node-pause on this machine: 5.5–9.2 s on 4.3.6 (Ra's own detector is
 * sooner), 11.8 s on 3.10.8 at load average 15 (it waits for the distribution's).
 */
export const electionBoundOption = (what: string): OptionSpec<number> => ({
  flag: '--election-bound <duration>',
  description: `the check on the time from the ${what} to the majority producer's first confirm after it (a failure detector, an election): at most this (${2 * NET_TICKTIME_S} s is 2 × net_ticktime: the distribution's detector gives a silent peer up by ${1.25 * NET_TICKTIME_S} s, then an election)`,
  default: `${2 * NET_TICKTIME_S}s`,
  parse: duration({ min: 100, max: 600_000, bare: 's' }),
});
