/** The dlx-loop lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'dlx-loop',
  title: 'a dead-letter route that leads back to its own queue, and the fix',
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
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
