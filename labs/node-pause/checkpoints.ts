/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  'before-pause': "both producers are confirming; the leader's node is about to be frozen (SIGSTOP)",
  frozen:
    "the node is held frozen: the majority's leader, its view of the frozen node, the producers' outcomes are read",
  resumed: "the node runs again (SIGCONT); its replica is compared with the leader's commit index next",
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
