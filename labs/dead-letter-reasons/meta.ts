/** The dead-letter-reasons lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';

export const meta = defineLab({
  name: 'dead-letter-reasons',
  title: 'every way a message dies: expired, maxlen, rejected, delivery_limit',
  summary: 'every way a message dies: expired (queue and message TTL), maxlen, rejected, delivery_limit',
  seed: '003 §2',
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
  // the broken variants (MQLAB_FAULT=dead-letter-reasons:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'default-exchange': {
      breaks:
        'the messages go straight into the queues (default exchange): x-death names exchange "" instead of the business exchange',
      fails: ['queueTtl', 'maxLength', 'reject', 'deliveryLimit'],
    },
    'app-dead-letter': {
      breaks:
        "the application puts its own copies in the TTL paths' DLQs: no x-death, expiration kept, before the real messages were sent",
      fails: [
        'messageTtl',
        'messageTtl.expiration',
        'messageTtl.originalExpiration',
        'queueTtl.lifetimeMs',
        'messageTtl.lifetimeMs',
        'dlqDepths',
      ],
    },
    'twice-app-copy': {
      breaks: 'the second death of twice is a copy the application made: the broker saw one death',
      fails: ['twice.countGrowth', 'twice', 'twice.history'],
    },
    'late-publish': {
      breaks: 'a producer that was not stopped puts one more message on a work queue',
      fails: ['workDepths'],
    },
    'publish-newest-first': {
      breaks: 'the overflow is published newest first: the other message is dead-lettered',
      fails: ['maxLength.deadLetter'],
    },
    'limit-gives-up': {
      breaks: 'the consumer rejects without requeue before the delivery limit',
      fails: ['deliveryLimit.deliveries'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    'dead-lettered':
      "every path's dead letter has arrived (six DLQs, one letter each; newest still in the max-length queue) and the lab's consumers are cancelled; the depths the checks use are read next",
  },
});

/** a broken variant of dead-letter-reasons */
export type Fault = FaultName<typeof meta.faults>;
