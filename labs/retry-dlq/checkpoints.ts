/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
export const checkpoints = {
  'after-delivery':
    'the consumer has received a delivery and logged received with its attempt (from x-death); nothing is written or settled yet',
  'before-ack': "a healthy order's transaction has committed (business_committed); the ack is not sent yet",
  'before-retry':
    'the poison order on attempt 1 or 2 has logged status=retry; the reject(requeue=false) that dead-letters it to the retry queue is not sent yet',
  'in-retry':
    'the poison order on attempt 1 or 2 was rejected and dead-lettered: it waits in the retry queue for its 1000 ms TTL, which runs out even while the run is paused',
  'before-dlq': 'the poison order on attempt 3: the confirmed copy to the DLQ and the ack are not sent yet',
  'after-consumer':
    'the consumer process has exited after settling all three orders; the depths and row counts the checks use are read; the poison order waits in the DLQ',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;
