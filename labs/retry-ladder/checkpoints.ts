/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  settled:
    'every message has reached its place (one business row for recovers, exhausted in the DLQ, parked in the parking queue); the work and delay queues are empty',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
