/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  holding: 'dbo-003 is received and its transaction open, not committed; PostgreSQL still runs',
  'postgres-down':
    "PostgreSQL's process is gone and its port refuses; the held delivery is still unacked (with --step the outage lasts while you wait)",
  'postgres-back': 'PostgreSQL accepts connections again; the consumer retries its commits',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
