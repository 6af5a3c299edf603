/** The requeue-storm lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/lab.js';
import { duration, integer, parseOptions, type OptionSpecs } from '../../src/options.js';

export interface StormOptions {
  /** how long each mode runs; at least two delay-queue TTLs so the delayed mode redelivers */
  windowMs: number;
  /** unacked deliveries the consumer may hold (1, the default, lets the storm hold the consumer) */
  prefetch: number;
}

const options: OptionSpecs<StormOptions> = {
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

export const meta = defineLab<StormOptions>({
  name: 'requeue-storm',
  title: 'why nack(requeue=true) is not a retry: the requeue storm next to a TTL delay queue',
  proves:
    'For the same window, one message that always fails and a steady stream of healthy ones: ' +
    'nack(requeue=true) hands the failing message back at once, so it is redelivered at least 20x more often ' +
    'per second than through reject → 500 ms TTL delay queue → back, and burns the consumer\'s CPU; ' +
    'every healthy message is still processed in both modes, and the queues are empty afterwards.',
  // both modes run one window each
  floorMs: 2 * parseOptions(options).windowMs,
  options,
  checkpoints: ['delayed-window-closed'],
  load: () => import('./lab.js'),
});
