/** The broker-restart lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
import { options } from './options.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'broker-restart',
  title: 'the RabbitMQ node restarted under a consumer holding unacked deliveries and a producer with confirms',
  proves:
    'The RabbitMQ node `mqlab up` started is stopped (its process exits, its port refuses) and started again while a ' +
    'consumer holds committed but unacked deliveries and a producer publishes with confirms. Both clients reconnect by ' +
    'themselves (src/broker/reconnect.ts): the held deliveries come back redelivered=true and the idempotency key skips ' +
    'them, the producer resends every id the broker had not confirmed, every message the durable quorum queue held ' +
    'survives the restart and is delivered, and the business table ends with each id once. Needs the services mqlab ' +
    'started (it restarts one); `all --jobs` runs it alone.',
  // no wait of its own: the run is the node's stop and boot (below) and the clients' reconnect after it
  floorMs: 0,
  // the node's own stop and boot, as this run measured them (its boot grows with the queues it recovers)
  serviceWaitMs: (f) => (typeof f.stopMs === 'number' && typeof f.startMs === 'number' ? f.stopMs + f.startMs : null),
  disruptive: true,
  // it stops a service: only one that `mqlab up` started here (refused alone with exit 2, SKIP in `all`)
  requires: async (config) => (await import('../../src/services/control.js')).ownServicesRefusal(config),
  options,
  checks: [
    'brokerPidChanged',
    'brokerRefused',
    'heldRedelivered',
    'unconfirmedAtRestart',
    'unconfirmedResent',
    'survivedDelivered',
    'duplicateEffects',
    'missingIds',
    'effectRows',
  ],
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
