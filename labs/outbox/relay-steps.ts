/**
 * What outbox's relay process runs that a broken variant may replace. relay.ts runs it as taught
 * and, through rt.steps, loads variants.ts (TEST ONLY) only when a run names a fault; variants.ts takes
 * the type from here, not from relay.ts, so the two do not import each other.
 */
/** the steps of the relay a broken variant may replace (variants.ts, TEST ONLY) */
export interface RelaySteps {
  /** SIGKILL itself after this many rows (0: never): --crash-after-confirm */
  crashAfter: number;
  /** one row: publish (confirmed), then mark it sent; `between` is where a crash lands */
  relayRow(publish: () => Promise<void>, between: () => Promise<void>, mark: () => Promise<void>): Promise<void>;
}
