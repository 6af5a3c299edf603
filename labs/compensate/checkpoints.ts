/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
