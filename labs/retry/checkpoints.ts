/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  'before-ack':
    'the retry copy of transient (attempt + 1) is confirmed in the delay queue; the original delivery is not yet acked (reached for attempts 1 and 2)',
  'dead-letter-sampled':
    'the DLQ consumer holds the poison message unacked, and its x-death entry (the work queue, reason rejected) was read',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
