/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  'before-kill': "part of the stream is confirmed and more is in flight; the leader's node is about to be killed",
  'failed-over': 'the producer has reconnected, resent and finished; the management API names the new leader',
  rejoined: "the killed node runs again; its replica is compared with the leader's commit index next",
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
