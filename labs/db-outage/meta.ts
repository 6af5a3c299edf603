/** The db-outage lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';
import { options } from './options.js';

export const meta = defineLab({
  name: 'db-outage',
  title: 'PostgreSQL stopped while a consumer holds a delivery between receive and commit',
  summary:
    "PostgreSQL stopped while a consumer holds a delivery between receive and commit: the transaction fails, no ack, the delivery comes back redelivered (or is kept while retrying); each id one row, none lost (needs mqlab's own services)",
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
  // the broken variants (MQLAB_FAULT=db-outage:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'ack-before-commit': {
      breaks: 'the consumer acks on receipt: the held message is lost when its transaction fails',
      fails: ['heldDeliveryOutcome', 'readyWhileHeld', 'ackedBeforeCommit', 'lostIds', 'effectRows'],
    },
    autocommit: {
      breaks: 'the effect and the dedupe key commit separately: the redelivery writes the effect twice',
      fails: ['duplicateEffects', 'effectRows'],
    },
    'no-outage': {
      breaks: 'the run never stops PostgreSQL: nothing shows the database down, no commit fails',
      fails: ['postgresExited', 'postgresRefused', 'failedCommits'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    holding: 'dbo-003 is received and its transaction open, not committed; PostgreSQL still runs',
    'postgres-down':
      "PostgreSQL's process is gone and its port refuses; the held delivery is still unacked (with --step the outage lasts while you wait)",
    'postgres-back': 'PostgreSQL accepts connections again; the consumer retries its commits',
  },
});

/** a broken variant of db-outage */
export type Fault = FaultName<typeof meta.faults>;
