/** The retry-dlq lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';
import { options } from './options.js';

export const meta = defineLab({
  name: 'retry-dlq',
  title: "retry counted by the broker's x-death; a poison message moved to a DLQ",
  summary: "retry counted by the broker's x-death (1 + count of work/rejected); poison moved to the DLQ",
  seed: '004',
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
  // the broken variants (MQLAB_FAULT=retry-dlq:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'wrong-attempt': { breaks: 'the consumer counts attempts from 2', fails: ['poisonAttempts'] },
    'no-commit': { breaks: 'healthy orders are acked without their business row', fails: ['business_rows'] },
    'drop-poison': {
      breaks: 'the poison order is acked on its last attempt without its copy to the DLQ',
      fails: ['poisonMovedToDlq', 'dlqMessages'],
    },
    'late-publish': {
      breaks: 'a producer publishes one more order to the work and the retry queue after the consumer stopped',
      fails: ['workQueueDepthAfter', 'retryQueueDepthAfter'],
    },
    unroutable: {
      breaks: 'one order is published to a key no queue is bound to: returned, not confirmed',
      fails: ['confirmed'],
    },
    'throw-healthy': {
      breaks: "the consumer fails on a healthy order with an error that is not the message's fault",
      fails: ['consumer.exitCode'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
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
  },
});

/** a broken variant of retry-dlq */
export type Fault = FaultName<typeof meta.faults>;
