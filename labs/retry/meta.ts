/** The retry lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';

export const meta = defineLab({
  name: 'retry',
  title: 'limited delayed retry and poison-message isolation',
  summary: 'limited delayed retry through a TTL queue (attempts 1, 2, 3); poison message to the DLQ',
  seed: '000 `retry`',
  proves:
    'A transient failure is retried through a 500 ms TTL delay queue with an attempt header (1, 2, 3), ' +
    'the retry copy is confirmed before the original is acked, the poison message is rejected without ' +
    'requeue into the DLQ with an x-death entry of reason rejected, and exactly two business rows exist.',
  floorMs: 1000,
  options: {},
  checks: [
    'healthyAttempts',
    'transientAttempts',
    'businessRows',
    'poisonDeadLettered',
    'shortestRetryGapMs',
    'queueDepthAfter',
  ],
  // the broken variants (MQLAB_FAULT=retry:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'skip-delay': {
      breaks: 'the retry copy goes straight back to the work queue, not through the TTL delay queue',
      fails: ['shortestRetryGapMs'],
    },
    'skip-attempt': { breaks: 'the retry copy is numbered attempt + 2', fails: ['transientAttempts'] },
    'no-commit': { breaks: 'the transient message is acked without its business row', fails: ['businessRows'] },
    'requeue-healthy': {
      breaks: 'the first ack of the healthy message is a nack with requeue: a second delivery',
      fails: ['healthyAttempts'],
    },
    'ack-poison': { breaks: 'the poison message is acked, not dead-lettered', fails: ['poisonDeadLettered'] },
    'extra-copy': {
      breaks: 'one more retry copy after the business row is committed: it ends in a queue',
      fails: ['queueDepthAfter'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    'before-ack':
      'the retry copy of transient (attempt + 1) was confirmed in the delay queue before this pause, and the original delivery is not yet acked (reached for attempts 1 and 2); the copy’s 500 ms TTL runs on during the pause: it expires back into the work queue and the consumer (prefetch 10) holds it beside the original',
    'dead-letter-sampled':
      'the DLQ consumer holds the poison message unacked, and its x-death entry (the work queue, reason rejected) was read',
  },
});

/** a broken variant of retry */
export type Fault = FaultName<typeof meta.faults>;
