/** The broker-restart lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';
import { options } from './options.js';

export const meta = defineLab({
  name: 'broker-restart',
  title: 'the RabbitMQ node restarted under a consumer holding unacked deliveries and a producer with confirms',
  summary:
    "the RabbitMQ node restarted under a reconnecting consumer holding unacked deliveries and a producer with confirms: held ones redelivered, unconfirmed ones resent, the quorum queue's contents survive, each id once (needs mqlab's own services)",
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
  // the broken variants (MQLAB_FAULT=broker-restart:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'transient-classic': {
      breaks: 'transient messages on a classic queue: the restart loses what the queue held',
      fails: ['heldRedelivered', 'survivedDelivered', 'missingIds', 'effectRows'],
    },
    'no-resend': { breaks: 'the producer forgets what was not confirmed at the restart', fails: ['unconfirmedResent'] },
    'no-dedupe': {
      breaks: 'the consumer writes without the idempotency key: redeliveries write twice',
      fails: ['duplicateEffects'],
    },
    'no-restart': {
      breaks: 'the run never restarts the node: no new process, no refused port, nothing unconfirmed',
      fails: ['brokerPidChanged', 'brokerRefused', 'unconfirmedAtRestart', 'heldRedelivered'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    holding: 'five deliveries are committed and their acks held',
    'broker-down': "the node's process is gone and its port refuses (with --step the node stays down while you wait)",
    'broker-back': 'the producer reconnected and resent what the node had not confirmed',
  },
});

/** a broken variant of broker-restart */
export type Fault = FaultName<typeof meta.faults>;
