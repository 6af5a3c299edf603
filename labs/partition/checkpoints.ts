/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  'before-cut': "both producers are confirming; the leader's node is about to be cut off from the other two",
  'cut-off':
    "the links are cut and held: the majority's leader, each side's view of the other, the producers' outcomes are read",
  healed: "the links are back; the cut-off node's replica is compared with the leader's commit index next",
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
