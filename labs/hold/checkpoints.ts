/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  'letter-held':
    'the end of the 2 s window: the letter was rejected while the target is unbound, the target is empty, and the latest reading of the counters of the source shows the held letter; the binding is not restored yet',
  recovered:
    "the binding is back and the target delivered the same message id and body, with the broker's x-death record",
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
