/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  'after-read':
    'the check of paid-during-check has read the order (CREATED, past its deadline) and not run its conditional UPDATE yet; the payment commits now, so the UPDATE will change nothing',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
