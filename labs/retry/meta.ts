/** The retry lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

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
