/** The options of the two producers a leader-stream lab runs (leader-stream.ts): their pace, window and confirm deadline. */
import { duration, integer, type OptionSpecs } from '../options.js';

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
