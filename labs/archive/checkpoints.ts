/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  'archiver-killed':
    'archiver-run1 committed the row of its first letter and was SIGKILLed before the ack; every dead letter, the killed one included, is ready in the DLQ again; archiver-run2 has not started',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
