/** The db-outage lab's options: how long PostgreSQL stays down, how long the consumer holds a delivery. */
import { duration, type OptionSpecs } from '../../src/kit/index.js';

interface DbOutageOptions {
  /** how long PostgreSQL stays stopped (before it is started again) */
  downMs: number;
  /** how long the consumer retries (with backoff) while it holds a delivery, before it gives it back */
  holdBudgetMs: number;
}

export const options: OptionSpecs<DbOutageOptions> = {
  downMs: {
    flag: '--down <duration>',
    description: 'how long PostgreSQL stays stopped before the lab starts it again',
    default: '3s',
    parse: duration({ min: 500, max: 60_000 }),
  },
  holdBudgetMs: {
    flag: '--hold-budget <duration>',
    description:
      'how long the consumer retries a failed transaction (backoff) while holding the delivery, before nack(requeue) gives it back',
    default: '1s',
    parse: duration({ min: 100, max: 120_000 }),
  },
};
