/** The retry-dlq lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
import { options } from './options.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

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
