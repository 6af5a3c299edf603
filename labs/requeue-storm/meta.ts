/** The requeue-storm lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, parseOptions } from '../../src/kit/index.js';
import { options } from './options.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

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
  // no database in this process: the run opens no connection to PostgreSQL
  database: false,
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
