/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  'delayed-window-closed':
    'mode (b), reject to a 500 ms TTL delay queue and back, has run its window and its healthy messages are processed; mode (a), nack(requeue=true), has not started',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
