/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  'loop-stopped':
    'the message has gone round the broken loop (x-death count 1, 2, 3) and the lab acked its fourth delivery; the fixed route is not exercised yet',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
