/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  'after-delivery': 'a consumer process has received a message and logged received; it has written nothing for it yet',
  'before-ack':
    "the consumer's transaction for that message has committed (or skipped a duplicate) and the ack is not sent yet; in run 1 the process kills itself right after",
  'after-crash':
    'consumer-run1 committed one order and died by SIGKILL before its ack; the broker made every unacked message ready again, and consumer-run2 has not started',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
