/**
 * TEST ONLY: where compensate's broken variants (declared in meta.ts;
 * MQLAB_FAULT=compensate:<name>, src/lab/fault.ts) replace a step of the compensation lab.ts runs
 * (`CompensateSteps`). lab.ts reads as the correct experiment.
 */
import type { Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import type { ReleaseOutcome, ReleaseRules } from './release.js';

/** the steps of the compensation a broken variant may replace */
export interface CompensateSteps {
  /** how a release writes */
  rules: ReleaseRules;
  /** the race's attempts: at once, each on its own pooled connection */
  raceAttempts(
    together: () => Promise<ReleaseOutcome[]>,
    oneByOne: () => Promise<ReleaseOutcome[]>,
  ): Promise<ReleaseOutcome[]>;
}

export const variants: Variants<CompensateSteps, Fault> = {
  // no WHERE state = 'RESERVED': a second release adds stock again
  'unconditional-release': (s) => ({ rules: { ...s.rules, onlyFromReserved: false } }),
  'wrong-state': (s) => ({ rules: { ...s.rules, releasedState: 'CANCELLED' } }),
  // the "race" attempts one after the other: nothing overlaps
  serialize: { raceAttempts: (_together, oneByOne) => oneByOne() },
};
