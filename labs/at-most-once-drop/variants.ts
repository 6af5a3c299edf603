/**
 * TEST ONLY: at-most-once-drop's broken variants (declared in meta.ts; MQLAB_FAULT=at-most-once-drop:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: each changes one of the three phases lab.ts
 * runs (`DropPhases`: each phase's strategy, overflow and steps as data).
 */
import type { VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { DropPhases } from './lab.js';

export const variants: VariantsOf<typeof meta, DropPhases> = {
  'at-least-once-in-drop': (p) => ({ drop: { ...p.drop, strategy: 'at-least-once' } }),
  'keep-binding': (p) => ({ drop: { ...p.drop, keepBinding: true } }),
  'fallback-with-reject-publish': (p) => ({ fallback: { ...p.fallback, rejectPublish: true } }),
  'at-least-once-missing': (p) => ({ hold: { ...p.hold, strategy: 'default' } }),
  'purge-markers': (p) => ({ hold: { ...p.hold, purgeMarkers: true } }),
};
