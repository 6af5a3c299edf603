/** The requeue-storm lab's options: the typed object its code gets, and the flags it is parsed from. */
import { duration, integer, type OptionSpecs } from '../../src/kit/index.js';

interface StormOptions {
  /** how long each mode runs; at least two delay-queue TTLs so the delayed mode redelivers */
  windowMs: number;
  /** unacked deliveries the consumer may hold (1, the default, lets the storm hold the consumer) */
  prefetch: number;
}

export const options: OptionSpecs<StormOptions> = {
  windowMs: {
    flag: '--window <duration>',
    description: 'how long each mode runs (1s–30s); a bare number is ms',
    default: '1500ms',
    aliases: ['--window-ms'],
    parse: duration({ min: 1000, max: 30_000, bare: 'ms' }),
  },
  prefetch: {
    flag: '--prefetch <n>',
    description: 'unacked deliveries per consumer (with 1 the storm holds the consumer; try 10)',
    default: '1',
    parse: integer(1, 1000),
  },
};
