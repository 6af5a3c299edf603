/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  held: 'm-held was rejected with requeue on the native held queue (min = max = 3000 ms) and its consumer cancelled; the queue holds it (ready 0, unacked 0) and the two x-max-length publishes are not sent yet',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
