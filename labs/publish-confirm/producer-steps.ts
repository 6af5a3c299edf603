/**
 * What publish-confirm's producer process runs that a broken variant may replace. producer.ts runs it as taught
 * and, through rt.steps, loads variants.ts (TEST ONLY) only when a run names a fault; variants.ts takes
 * the type from here, not from producer.ts, so the two do not import each other.
 */
/** how the producer ends (a broken variant changes it: variants.ts, TEST ONLY) */
export interface ProducerSteps {
  /** with --die-before-confirm: the process dies before the confirm reaches it */
  diesBeforeConfirm: boolean;
}
