/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  dropped:
    'phase 1 (at-most-once): the letter was rejected while the target is unbound, and the first reading of the counters of the source that shows both markers shows no held letter; the target is empty and still unbound',
  'fell-back':
    'phase 2 (at-least-once, but overflow left at drop-head): the broker fell back to at-most-once, nothing is held; the target is empty and still unbound',
  'letter-held':
    'phase 3 (at-least-once with overflow=reject-publish): the same letter is held in the source, also once the markers were taken off; the target is still unbound',
  recovered: "the binding is back and the broker's dead-letter worker delivered the held letter to the target",
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
