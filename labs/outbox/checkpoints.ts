/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  committed:
    'the two committed orders have unsent outbox rows; the queue is empty: the business side published nothing',
  'relay-crashed':
    'relay-run1 died by SIGKILL after the broker confirmed evt-order-2 and before marking it sent: that row is unsent while the queue holds both events',
  relayed: 'relay-run2 published the unsent row again: no unsent row left, three messages in the queue (one duplicate)',
  consumed:
    'the consumer took all three: one duplicate skipped by the dedupe claim, one business effect per committed order',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
