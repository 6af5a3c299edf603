/**
 * TEST ONLY: where consumer-crash's broken variants (declared in meta.ts;
 * MQLAB_FAULT=consumer-crash:<name>, src/lab/fault.ts) replace a step of the consumer process
 * (`ConsumerSteps`, consumer.ts). consumer.ts reads as the correct consumer.
 */
import type { Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';

/** the steps of the consumer a broken variant may replace */
export interface ConsumerSteps {
  /** the order of the business commit and the ack: commit first */
  commitThenAck(commit: () => Promise<void>, ack: () => void): Promise<void>;
  /** the processed_messages claim stops a second effect of one message */
  dedupe: boolean;
  /** die after this business commit, before its ack (0: never): --crash-after-commits */
  crashAt: number;
  /** how the process dies there: SIGKILL, so no ack leaves it */
  die(): void;
  /** basic.qos: one message at a time */
  prefetch: number;
}

export const variants = (crashAfter: number): Variants<ConsumerSteps, Fault> => ({
  'ack-before-commit': {
    commitThenAck: async (commit, ack) => {
      ack();
      await commit();
    },
  },
  'no-dedupe': { dedupe: false },
  // the second run dies after its first commit too
  'crash-again': (s) => ({ crashAt: s.crashAt || 1 }),
  // a clean exit instead of the kill (the first run's)
  'exit-cleanly': crashAfter > 0 ? { die: () => process.exit(0) } : {},
  // takes every message at once
  'prefetch-all': { prefetch: 10 },
});
