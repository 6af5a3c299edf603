/** The retry-dlq lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/lab.js';
import { options } from './options.js';
import { faults } from './faults.js';

/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
const checkpoints = {
  'after-delivery':
    'the consumer has received a delivery and logged received with its attempt (from x-death); nothing is written or settled yet',
  'before-ack': 'a healthy order\'s transaction has committed (business_committed); the ack is not sent yet',
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

export const meta = defineLab({
  name: 'retry-dlq',
  title: "retry counted by the broker's x-death; a poison message moved to a DLQ",
  proves:
    'Three confirmed orders; a consumer in its own process commits the two healthy ones to PostgreSQL ' +
    '(idempotent by message id) and rejects the poison one without requeue. The quorum work queue dead-letters ' +
    'it to a retry queue whose 1000 ms TTL dead-letters it back; the attempt number is 1 + the x-death count ' +
    'of (work queue, rejected), so it reads 1, 2, 3 on 3.10 and 4.x alike. At attempt 3 the consumer moves it ' +
    'to the DLQ with a confirm, then acks: work and retry queues end empty, the DLQ holds one message.',
  floorMs: 2000,
  options,
  checks: [
    'confirmed',
    'business_rows',
    'poisonAttempts',
    'poisonMovedToDlq',
    'dlqMessages',
    'workQueueDepthAfter',
    'retryQueueDepthAfter',
    'consumer.exitCode',
  ],
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
