/**
 * What auto-ack-loss's consumer process runs that a broken variant may replace. consumer.ts runs it as taught
 * and, through rt.steps, loads variants.ts (TEST ONLY) only when a run names a fault; variants.ts takes
 * the type from here, not from consumer.ts, so the two do not import each other.
 */
/** how one phase's consumer consumes (a broken variant changes it: variants.ts, TEST ONLY) */
export interface ConsumerSettings {
  /** SIGKILL itself after this many committed rows (0: never) */
  crashAfter: number;
  /** consume with noAck: the broker forgets each message as it sends it */
  noAck: boolean;
  /** ack a message (forget: never) */
  acks: boolean;
}
