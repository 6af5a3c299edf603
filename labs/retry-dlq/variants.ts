/**
 * TEST ONLY: retry-dlq's broken variants (declared in meta.ts; MQLAB_FAULT=retry-dlq:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: a replaced step of the producer
 * (`ProducerSteps`: producer.ts) or of the consumer process (`ConsumerSteps`: consumer-steps.ts), or an
 * action on an event the lab logs. Those files read as the correct experiment.
 */
import { must, type ChildRuntime, type Variants, type VariantsOf } from '../../src/kit/index.js';
import type { meta, Fault } from './meta.js';
import type { ProducerSteps } from './producer.js';
import type { ConsumerSteps } from './consumer-steps.js';
import { ORDERS, orderBody, publishProps } from './orders.js';
import { names, type RetryDlqNames } from './names.js';

export const variants: VariantsOf<typeof meta, ProducerSteps> = {
  // the second order goes to a routing key no queue is bound to
  unroutable: () => ({ routingKey: (order, queue) => (order === ORDERS[1] ? `${queue}.nowhere` : queue) }),
  // a producer that publishes after its consumer stopped, one order to each queue
  'late-publish': {
    after: { source: 'exit', process: 'consumer' },
    run: async (ctx) => {
      const late = must(ORDERS[0], 'the first order');
      const name = names(ctx.names);
      for (const q of [name.work, name.retry]) await ctx.broker.sendConfirmed(q, orderBody(late), publishProps(late));
    },
  },
};

export const consumer: Variants<ConsumerSteps, Fault, ChildRuntime<RetryDlqNames, Fault>> = {
  // counts from 2
  'wrong-attempt': () => ({ attempt: (n) => n + 1 }),
  // healthy orders write no business row
  'no-commit': () => ({ writeRow: (order, insert) => (order.quantity <= 0 ? insert() : Promise.resolve()) }),
  // after the business row, a failure that is not the message's fault: the transaction rolls back
  'throw-healthy': (s) => ({
    writeRow: async (order, insert) => {
      await s.writeRow(order, insert);
      throw new Error("broken variant: a failure that is not the message's fault");
    },
  }),
  // acked without its DLQ copy
  'drop-poison': () => ({ toDlq: () => Promise.resolve('poison_dropped' as const) }),
};
