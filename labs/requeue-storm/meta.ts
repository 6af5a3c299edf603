/** The requeue-storm lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, parseOptions, type FaultName } from '../../src/kit/index.js';
import { options } from './options.js';

export const meta = defineLab({
  name: 'requeue-storm',
  title: 'why nack(requeue=true) is not a retry: the requeue storm next to a TTL delay queue',
  summary: '`nack(requeue=true)` against a TTL delay queue: redeliveries per second, CPU, healthy latency',
  seed: '003 §1.2, §3.1',
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
  // the broken variants (MQLAB_FAULT=requeue-storm:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'delayed-requeues': {
      breaks: 'the delayed mode requeues at once instead of going through the delay queue',
      fails: ['delayedGapMinMs'],
    },
    'healthy-lost': {
      breaks: 'the last healthy message of each mode is acked unprocessed',
      fails: ['healthyProcessedRequeue', 'healthyProcessedDelayed'],
    },
    'leave-failing': {
      breaks: 'the failing message is put back at the end instead of being taken off',
      fails: ['queueDepthAfter'],
    },
    'requeue-waits': {
      breaks: 'the requeue consumer holds the failing message one delay TTL before its nack',
      fails: ['requeueGapP50Ms'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    'delayed-window-closed':
      'mode (b), reject to a 500 ms TTL delay queue and back, has run its window and its healthy messages are processed; mode (a), nack(requeue=true), has not started',
  },
});

/** a broken variant of requeue-storm */
export type Fault = FaultName<typeof meta.faults>;
