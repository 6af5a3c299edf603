/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  'version-applied': 'v2 (paid) is committed to the state table while v1 waits in the delay queue',
  'stale-recorded':
    'v1 came back from the delay queue (attempt 2) and was recorded as stale with incoming version 1 and stored version 2; the state still says version 2',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
