/** The order-timeout lab's options: the typed object its code gets, and the flags it is parsed from. */
import { duration, type OptionSpecs } from '../../src/kit/index.js';

interface OrderTimeoutOptions {
  /** each order's time to pay, and the check queue's TTL */
  delayMs: number;
}

/**
 * min 500ms: the margin for a late close is one delay, and the checks reach the consumer one after
 * another (measured on a loaded 2-core machine: up to 335 ms after the deadline with 400 ms delays)
 */
export const DELAY_MS = { default: 1000, min: 500, max: 60_000 };

export const options: OptionSpecs<OrderTimeoutOptions> = {
  delayMs: {
    flag: '--delay <duration>',
    description: "each order's time to pay and the check's TTL (500ms–60s; a bare number is ms)",
    default: `${DELAY_MS.default}ms`,
    aliases: ['--delay-ms'],
    parse: duration({ min: DELAY_MS.min, max: DELAY_MS.max, bare: 'ms' }),
  },
};
