/**
 * What consumer-crash's consumer process runs that a broken variant may replace. consumer.ts runs it as taught
 * and, through rt.steps, loads variants.ts (TEST ONLY) only when a run names a fault; variants.ts takes
 * the type from here, not from consumer.ts, so the two do not import each other.
 */
/** the steps of the consumer a broken variant may replace (variants.ts, TEST ONLY) */
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
