/** The requeue-storm lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/lab.js';
import { parseOptions } from '../../src/options.js';
import { options } from './options.js';
import { faults } from './faults.js';

/** the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses) */
const checkpoints = {
  'delayed-window-closed':
    'mode (b), reject to a 500 ms TTL delay queue and back, has run its window and its healthy messages are processed; mode (a), nack(requeue=true), has not started',
};

/** a checkpoint of this lab */
export type Checkpoint = keyof typeof checkpoints;

export const meta = defineLab({
  name: 'requeue-storm',
  title: 'why nack(requeue=true) is not a retry: the requeue storm next to a TTL delay queue',
  proves:
    'For the same window, one message that always fails and a steady stream of healthy ones: ' +
    'nack(requeue=true) hands the failing message back at once, so it is redelivered at least 20x more often ' +
    'per second than through reject → 500 ms TTL delay queue → back (the CPU each mode spent is reported, not claimed); ' +
    'every healthy message is still processed in both modes, and the queues are empty afterwards.',
  // both modes run one window each
  floorMs: 2 * parseOptions(options).windowMs,
  measuresCapabilities: true, // its test reads nackRequeueCountsTowardLimit and deadLetteredCopyCarriesDeliveryCount
  options,
  checks: [
    'requeueGapP50Ms',
    'delayedGapMinMs',
    'healthyProcessedRequeue',
    'healthyProcessedDelayed',
    'queueDepthAfter',
  ],
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
