/** The db-outage lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
import { options } from './options.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'db-outage',
  title: 'PostgreSQL stopped while a consumer holds a delivery between receive and commit',
  proves:
    'PostgreSQL (the cluster `mqlab up` started) is stopped while the consumer has a transaction open for a ' +
    'delivery, and started again after --down: the commit fails (connection refused, the process exited), the ' +
    'consumer does not ack; it retries with backoff while it holds the delivery and, once --hold-budget is spent, ' +
    'gives it back with nack(requeue) so the broker redelivers it (redelivered=true). When PostgreSQL accepts ' +
    'connections again every message id has exactly one effect row and none was lost: nothing was acked before ' +
    'its commit. Needs the services mqlab started (it stops one); `all --jobs` runs it alone.',
  // --down (3 s by default): PostgreSQL stays down that long after it is gone
  floorMs: 3000,
  // and its own stop and start around that, as this run measured them (the facts stopMs and restartMs)
  serviceWaitMs: (f) =>
    typeof f.stopMs === 'number' && typeof f.restartMs === 'number' ? f.stopMs + f.restartMs : null,
  disruptive: true,
  // it stops a service: only one that `mqlab up` started here (refused alone with exit 2, SKIP in `all`)
  requires: async (config) => (await import('../../src/services/control.js')).ownServicesRefusal(config),
  options,
  checks: [
    'postgresExited',
    'postgresRefused',
    'failedCommits',
    'heldDeliveryOutcome',
    'readyWhileHeld',
    'ackedBeforeCommit',
    'lostIds',
    'duplicateEffects',
    'effectRows',
  ],
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
