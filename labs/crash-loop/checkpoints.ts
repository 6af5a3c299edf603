/** the run's pauses (ctx.checkpoint), in run order: none (--step runs straight through) */
export const checkpoints = {};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
