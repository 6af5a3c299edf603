/** The dead-letter-reasons lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'dead-letter-reasons',
  title: 'every way a message dies: expired, maxlen, rejected, delivery_limit',
  proves:
    'One message per path dies into its own DLQ: queue TTL and per-message expiration give reason expired ' +
    '(the dead letter loses its expiration property, kept as x-death original-expiration), x-max-length with ' +
    'drop-head gives maxlen for the oldest message, reject(requeue=false) gives rejected, repeated ' +
    'reject(requeue=true) past x-delivery-limit gives delivery_limit; each x-death entry (reason, queue, count) ' +
    'and the x-first-death-* (and, from 3.13, x-last-death-*) headers match the broker version, and a message ' +
    'that dies twice on the same (queue, reason) shows count 1 then 2.',
  // the longest TTL (150 ms), and the next run's second purge of the letters the DLQs keep, once a letter that
  // was on its way has landed (IN_FLIGHT_MS in src/broker/topology.ts, not imported: it loads the broker client)
  floorMs: 150 + 150,
  // no database in this process: the run opens no connection to PostgreSQL
  database: false,
  options: {},
  checks: [
    'queueTtl',
    'messageTtl',
    'maxLength',
    'reject',
    'deliveryLimit',
    'queueTtl.lifetimeMs',
    'messageTtl.expiration',
    'messageTtl.originalExpiration',
    'messageTtl.lifetimeMs',
    'maxLength.deadLetter',
    'deliveryLimit.deliveries',
    'twice.countGrowth',
    'twice',
    'twice.history',
    'dlqDepths',
    'workDepths',
  ],
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
