/**
 * TEST ONLY: where requeue-storm's broken variants (declared in meta.ts;
 * MQLAB_FAULT=requeue-storm:<name>, src/lab/fault.ts) replace a step of a mode's consumer
 * (`StormSteps`, mode.ts). mode.ts reads as the correct consumer.
 */
import type { Delivery, Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import { DELAY_TTL_MS } from './names.js';

/** the steps of a mode's consumer a broken variant may replace */
export interface StormSteps {
  /** after the window (or the cap), the failing message is taken off the queue */
  removeFailing(m: Delivery): void;
  /** delayed mode rejects the failing message into its delay queue (requeue mode: a nack with requeue) */
  delayedRejects: boolean;
  /** requeue mode: the failing message goes back at once */
  requeueFailing(m: Delivery): void;
  /** a healthy message is processed */
  takeHealthy(m: Delivery, process: () => void): void;
}

/** `lastHealthy`: the message id of the mode's last healthy message */
export const variants = (lastHealthy: string): Variants<StormSteps, Fault> => ({
  // the failing message is put back instead of taken off
  'leave-failing': { removeFailing: (m) => m.nack(true) },
  'delayed-requeues': { delayedRejects: false },
  // the consumer holds the failing message one delay TTL before its nack
  'requeue-waits': { requeueFailing: (m) => void setTimeout(() => m.nack(true), DELAY_TTL_MS) },
  // the consumer acks the last healthy message without processing it
  'healthy-lost': { takeHealthy: (m, process) => (m.messageId === lastHealthy ? m.ack() : process()) },
});
