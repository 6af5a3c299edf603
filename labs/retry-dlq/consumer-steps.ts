/**
 * What retry-dlq's consumer process runs that a broken variant may replace. consumer.ts runs it as taught
 * and, through rt.steps, loads variants.ts (TEST ONLY) only when a run names a fault; variants.ts takes
 * the type from here, not from consumer.ts, so the two do not import each other.
 */
/** the steps of the consumer a broken variant may replace (variants.ts, TEST ONLY) */
export interface ConsumerSteps {
  /** the attempt a delivery counts as: 1 + the work queue's x-death count of reason rejected */
  attempt(fromHeaders: number): number;
  /** the business row of an order, in the transaction that claims its message id */
  writeRow(order: { quantity: number }, insert: () => Promise<unknown>): Promise<unknown>;
  /** the last attempt failed: a confirmed copy in the DLQ before the original is acked; the status logged */
  toDlq(send: () => Promise<unknown>): Promise<'poison_to_dlq' | 'poison_dropped'>;
}
