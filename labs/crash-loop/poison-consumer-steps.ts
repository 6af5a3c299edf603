/**
 * What crash-loop's poison-consumer process runs that a broken variant may replace. poison-consumer.ts
 * runs it as taught and, through rt.steps, loads variants.ts (TEST ONLY) only when a run names a fault;
 * variants.ts takes the type from here, not from poison-consumer.ts, so the two do not import each other.
 */
import type { Delivery } from '../../src/kit/index.js';

/** the poison consumer's failure (a broken variant changes it: variants.ts, TEST ONLY) */
export interface PoisonSteps {
  fail(m: Delivery): Promise<void>;
}
