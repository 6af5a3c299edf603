/**
 * TEST ONLY: compensate's broken variants (declared in meta.ts; MQLAB_FAULT=compensate:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: each replaces a step of the compensation
 * lab.ts runs (`CompensateSteps`). lab.ts reads as the correct experiment.
 */
import type { VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { CompensateSteps } from './lab.js';

export const variants: VariantsOf<typeof meta, CompensateSteps> = {
  // no WHERE state = 'RESERVED': a second release adds stock again
  'unconditional-release': (s) => ({ rules: { ...s.rules, onlyFromReserved: false } }),
  'wrong-state': (s) => ({ rules: { ...s.rules, releasedState: 'CANCELLED' } }),
  // the "race" attempts one after the other: nothing overlaps
  serialize: () => ({ raceAttempts: (_together, oneByOne) => oneByOne() }),
};
