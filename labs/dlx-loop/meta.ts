/** The dlx-loop lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';

export const meta = defineLab({
  name: 'dlx-loop',
  title: 'a dead-letter route that leads back to its own queue, and the fix',
  summary: 'a dead-letter route back into its own queue, found by `mqlab status`, and the fix',
  seed: '003 §5.1',
  proves:
    'A queue whose dead-letter exchange routes back into itself returns a rejected message at once, ' +
    'with the x-death count growing on every hop (1, 2, 3) and no delay queue on the way (its x-death ' +
    'history holds only the rejection); the topology check finds the ' +
    'loop. Splitting the route (a TTL retry queue and an archive queue) delays each retry by the TTL ' +
    'and lets the message leave the loop into the archive after the last attempt.',
  floorMs: 2 * 200,
  // no database in this process: the run opens no connection to PostgreSQL
  database: false,
  options: {},
  checks: [
    'loopDetected',
    'xDeathCounts',
    'loopHistory',
    'fixedLoopDetected',
    'leftLoopAfterAttempts',
    'fixedShortestRetryGapMs',
    'archived',
    'queueDepthAfter',
  ],
  // the broken variants (MQLAB_FAULT=dlx-loop:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'requeue-loop': {
      breaks: 'the loop uses nack(requeue) instead of a dead-letter hop: no x-death at all',
      fails: ['xDeathCounts', 'loopHistory'],
    },
    'fixed-loop-binding': {
      breaks: "the fixed queue's dead-letter route also leads straight back to it",
      fails: ['fixedLoopDetected', 'fixedShortestRetryGapMs', 'queueDepthAfter'],
    },
    'no-loop-binding': {
      breaks: "the broken queue's dead-letter route is unbound: a rejected message is dropped",
      fails: ['loopDetected'],
    },
    'off-by-one': { breaks: 'the fixed consumer allows one attempt too many', fails: ['leftLoopAfterAttempts'] },
    'archive-without-id': { breaks: 'the archived copy loses its message id', fails: ['archived'] },
    'leave-archive': { breaks: 'the archived letter is put back in its queue', fails: ['queueDepthAfter'] },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    'loop-stopped':
      'the message has gone round the broken loop (x-death count 1, 2, 3) and the lab acked its fourth delivery; the fixed route is not exercised yet',
  },
});

/** a broken variant of dlx-loop */
export type Fault = FaultName<typeof meta.faults>;
