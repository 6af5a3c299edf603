/**
 * TEST ONLY: where retry-dlq's broken variants (declared in meta.ts; MQLAB_FAULT=retry-dlq:<name>,
 * src/lab/fault.ts) replace a step: of the lab (`LabSteps`: lab.ts, producer.ts) or of the consumer
 * process (`ConsumerSteps`: consumer.ts). Those files read as the correct experiment.
 */
import type { Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import type { ORDERS } from './orders.js';

type Order = (typeof ORDERS)[number];

/** the steps of the lab a broken variant may replace */
export interface LabSteps {
  /** the routing key an order is published with: the work queue's */
  routingKey(order: Order, queue: string): string;
  /** after the consumer stopped: nothing more is published */
  afterConsumer(): Promise<unknown>;
}

export const labVariants = (
  secondOrder: Order | undefined,
  latePublish: () => Promise<unknown>,
): Variants<LabSteps, Fault> => ({
  // the second order goes to a routing key no queue is bound to
  unroutable: { routingKey: (order, queue) => (order === secondOrder ? `${queue}.nowhere` : queue) },
  // a producer that publishes after its consumer stopped, one order to each queue
  'late-publish': { afterConsumer: latePublish },
});

/** the steps of the consumer a broken variant may replace */
export interface ConsumerSteps {
  /** the attempt a delivery counts as: 1 + the work queue's x-death count of reason rejected */
  attempt(fromHeaders: number): number;
  /** the business row of an order, in the transaction that claims its message id */
  writeRow(order: { quantity: number }, insert: () => Promise<unknown>): Promise<unknown>;
  /** after the business row: the transaction commits */
  afterWrite(): void;
  /** the last attempt failed: a confirmed copy in the DLQ before the original is acked; the status logged */
  toDlq(send: () => Promise<unknown>): Promise<'poison_to_dlq' | 'poison_dropped'>;
}

export const consumerVariants: Variants<ConsumerSteps, Fault> = {
  // counts from 2
  'wrong-attempt': { attempt: (n) => n + 1 },
  // healthy orders write no business row
  'no-commit': { writeRow: (order, insert) => (order.quantity <= 0 ? insert() : Promise.resolve()) },
  'throw-healthy': {
    afterWrite: () => {
      throw new Error("broken variant: a failure that is not the message's fault");
    },
  },
  // acked without its DLQ copy
  'drop-poison': { toDlq: () => Promise.resolve('poison_dropped' as const) },
};
