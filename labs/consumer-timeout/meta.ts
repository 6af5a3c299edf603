/** The consumer-timeout lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';
import { options } from './options.js';

export const meta = defineLab({
  name: 'consumer-timeout',
  title: 'a consumer that holds a delivery past the consumer timeout: cancelled (4.3) or its channel closed',
  summary:
    'a delivery held past `consumer-timeout`: 4.3 quorum queues return it uncounted and cancel the consumer (amqplib hands the handler null; a client that ignores it sees nothing, for ever), classic queues no longer time out; 4.0 and 3.10 close the channel (406) and the return counts',
  proves:
    'Three consumers hold a delivery past the consumer timeout of their queue (1 s by default). On a quorum queue ' +
    'RabbitMQ 4.3 returns the delivery without counting it (the next consumer gets it redelivered, x-delivery-count ' +
    'absent) and sends basic.cancel: amqplib calls the handler with null, the channel stays open. A client that ignores ' +
    'that cancel receives nothing more (the next message waits in the queue) and no error. A classic queue with the ' +
    'same timeout does not time out on 4.3. Before 4.3 the channel checks on its tick and closes with 406 ' +
    'PRECONDITION_FAILED, on both queue types, and the return counts (x-delivery-count 1). 3.10 has only the ' +
    "broker-wide consumer_timeout: the lab sets it on mqlab's own services for the moment its channels open.",
  // the timeout, then a window of twice it (at least 2 s) in which the ignoring client must see nothing
  floorMs: 1000 + 2000,
  // below 4.3 it changes the node's settings for its run (the channel tick; on 3.10 the broker-wide
  // consumer_timeout, for the moment its channels open): `mqlab all --jobs N` runs it alone, and a
  // class student's credentials do not (the node is the class's)
  disruptive: true,
  // no database in this process: the run opens no connection to PostgreSQL
  database: false,
  options,
  checks: ['brokerAction', 'heldMs', 'redeliveryCount', 'ignoredCancel', 'classicQueueTimeout'],
  // the broken variants (MQLAB_FAULT=consumer-timeout:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'no-consumer-timeout': {
      breaks: 'the queues without a consumer timeout (no policy; 3.10: the broker-wide value left at 30 min)',
      fails: ['brokerAction', 'heldMs', 'redeliveryCount', 'ignoredCancel'],
    },
    'classic-as-quorum': {
      breaks: 'the classic queue declared as a quorum queue: on 4.3 it times out as well',
      fails: ['classicQueueTimeout'],
    },
    'reconsume-on-cancel': {
      breaks: 'the ignoring client consumes again when it is cancelled: it gets both messages (4.3)',
      fails: ['ignoredCancel'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    'held-past-timeout':
      'the broker acted on the held and the ignoring consumer (4.3: cancelled, their deliveries back in the queues; before: their channels closed); the classic consumer still holds its delivery; the ignoring client has not been sent its second message yet',
  },
});

/** a broken variant of consumer-timeout */
export type Fault = FaultName<typeof meta.faults>;
