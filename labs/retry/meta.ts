/** The retry lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/lab.js';
import { faults } from './faults.js';

/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
const checkpoints = {
  'before-ack':
    'the retry copy of transient (attempt + 1) is confirmed in the delay queue; the original delivery is not yet acked (reached for attempts 1 and 2)',
  'dead-letter-sampled':
    'the DLQ consumer holds the poison message unacked, and its x-death entry (the work queue, reason rejected) was read',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;

export const meta = defineLab({
  name: 'retry',
  title: 'limited delayed retry and poison-message isolation',
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
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
