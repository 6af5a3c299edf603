/**
 * TEST ONLY: the dead-letter-reasons lab's broken variants (MQLAB_FAULT=dead-letter-reasons:<name>, src/lab/fault.ts): what each breaks
 * and the checks that must print FAIL in a run of it. Data only: meta.ts imports it.
 */
import { defineFaults } from '../../src/kit/index.js';

export const faults = defineFaults({
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
});

/** a broken variant of dead-letter-reasons */
export type Fault = keyof typeof faults;
