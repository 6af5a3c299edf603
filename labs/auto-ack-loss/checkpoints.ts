/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  'auto-ack-crashed':
    'the noAck consumer died by SIGKILL after 5 rows: the queue is empty, the table has 5 rows, the rest are lost',
  'manual-crashed':
    'the manual-ack consumer died the same way: its unacked messages are ready again; the second process has not started',
  'unacked-held':
    'the consumer that never acks is idle with its channel open: its messages are not ready (the statistics show them unacked)',
  returned: 'it closed its channel: every message is ready again, none unacked',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
