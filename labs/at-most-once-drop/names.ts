/** Every name the at-most-once-drop lab touches, and its topology as data. */
import type { Names, Topology } from '../../src/kit/index.js';

export const ROUTING_KEY = 'failed';
/** the same letter in both phases: one event id, one body */
export const EVENT_ID = 'dropped-event';
export const BODY = 'payload';
/** published after the rejection and left ready: a reading of the source's counters showing them is recent enough */
export const MARKER_ID = 'marker';
/** ties a delivered letter to the run and the phase that published it */
export const RUN_HEADER = 'mqlab-run';
export const PHASE_HEADER = 'mqlab-phase';

export function names(n: Names) {
  const source = n.q('me12.retry.drop');
  return {
    source,
    target: n.q('me12.retry.drop.target'),
    dlx: n.x('me12.retry.drop.dlx'),
    policy: n.p('me12-drop'),
    pattern: n.exact(source),
  };
}

export type DropNames = ReturnType<typeof names>;

/**
 * The target bound to the dead-letter exchange, as it is between runs: the lab removes the binding
 * for each phase's window and restores it (declared here, so a first run in a fresh namespace starts
 * bound too, and a variant that keeps the binding keeps one)
 */
export function topology(n: Names): Topology {
  const name = names(n);
  return {
    exchanges: [{ name: name.dlx, type: 'direct' }],
    queues: [{ name: name.source }, { name: name.target }],
    bindings: [{ queue: name.target, exchange: name.dlx, key: ROUTING_KEY }],
  };
}
