/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  holding: 'five deliveries are committed and their acks held',
  'broker-down': "the node's process is gone and its port refuses (with --step the node stays down while you wait)",
  'broker-back': 'the producer reconnected and resent what the node had not confirmed',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
