/**
 * TEST ONLY: where hold's broken variants (declared in meta.ts; MQLAB_FAULT=hold:<name>,
 * src/lab/fault.ts) replace a step of the experiment lab.ts runs (`HoldSteps`). lab.ts reads as the
 * correct experiment; each entry here is one way to get it wrong.
 */
import type { PolicySpec, Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';

/** the steps of the hold experiment a broken variant may replace */
export interface HoldSteps {
  /** the at-least-once policy the lab applies to the source */
  policy: PolicySpec;
  /** the target loses its route from the dead-letter exchange */
  unbindTarget(): Promise<unknown>;
  /** the event is published to the source */
  publish(): Promise<void>;
  /** the target's route is restored */
  rebindTarget(): Promise<unknown>;
  /** what the application does after the rebind: nothing, the broker re-routes the held letter */
  afterRebind(): Promise<unknown>;
  /** what the application does after the lab consumed the target: nothing */
  afterConsumed(): Promise<unknown>;
}

/** `republishEvent`: the application publishes the event to the dead-letter exchange itself */
export const variants = (correct: HoldSteps, republishEvent: () => Promise<unknown>): Variants<HoldSteps, Fault> => ({
  'wrong-pattern': { policy: { ...correct.policy, pattern: `${correct.policy.pattern}-nothing` } },
  'keep-binding': { unbindTarget: async () => {} },
  'publish-twice': {
    publish: async () => {
      await correct.publish();
      await correct.publish();
    },
  },
  'no-rebind': { rebindTarget: async () => {} },
  republish: { afterRebind: republishEvent },
  'late-republish': { afterConsumed: republishEvent },
});
