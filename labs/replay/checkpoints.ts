/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  'repair-confirmed':
    'the approved, repaired copy (same id) is confirmed in the work queue; the dead original is still held unacked by the replay tool, so the event exists twice for a moment',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
