/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  returned:
    "(a, b): the mandatory publish got return then ack, the plain one only ack; the exchange's only queue holds neither",
  nacked:
    '(c): the bounded queue (x-max-length 1) holds one message and the second publish was nacked; nothing is resent yet',
  'result-unknown':
    '(d): producer-run1 died by SIGKILL without reading a confirm; the first copy is in the events queue, the second attempt has not started',
  consumed:
    'both copies were delivered, one failed once and was retried; one business effect, the other copy skipped by the dedupe row',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
