/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  'dead-lettered':
    "every path's dead letter has arrived (six DLQs, one letter each; newest still in the max-length queue) and the lab's consumers are cancelled; the depths the checks use are read next",
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
