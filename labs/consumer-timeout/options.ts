/** consumer-timeout's options: the typed object its code gets, and the flags it is parsed from. */
import { duration, type OptionSpecs } from '../../src/kit/index.js';

interface TimeoutOptions {
  /** the consumer timeout of the lab's queues */
  timeoutMs: number;
}

export const options: OptionSpecs<TimeoutOptions> = {
  timeoutMs: {
    flag: '--timeout <duration>',
    description: "the consumer timeout of the lab's queues (the broker's default: 30 min)",
    default: '1s',
    parse: duration({ min: 100, max: 600_000 }),
  },
};
