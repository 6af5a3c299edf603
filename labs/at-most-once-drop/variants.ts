/**
 * TEST ONLY: where at-most-once-drop's broken variants (declared in meta.ts;
 * MQLAB_FAULT=at-most-once-drop:<name>, src/lab/fault.ts) change the three phases lab.ts runs
 * (`DropPhases`: each phase's strategy, overflow and steps as data).
 */
import type { Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import type { PhaseInput } from './unbound.js';

/** what sets the three phases apart (the rest of each phase's input is the run's) */
export type PhaseSpec = Pick<
  PhaseInput,
  'phase' | 'strategy' | 'rejectPublish' | 'markers' | 'sampleAfterMarkers' | 'purgeMarkers' | 'keepBinding'
>;

export interface DropPhases {
  drop: PhaseSpec;
  fallback: PhaseSpec;
  hold: PhaseSpec;
}

export const variants: Variants<DropPhases, Fault> = {
  'at-least-once-in-drop': (p) => ({ drop: { ...p.drop, strategy: 'at-least-once' } }),
  'keep-binding': (p) => ({ drop: { ...p.drop, keepBinding: true } }),
  'fallback-with-reject-publish': (p) => ({ fallback: { ...p.fallback, rejectPublish: true } }),
  'at-least-once-missing': (p) => ({ hold: { ...p.hold, strategy: 'default' } }),
  'purge-markers': (p) => ({ hold: { ...p.hold, purgeMarkers: true } }),
};
