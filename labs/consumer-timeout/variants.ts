/**
 * TEST ONLY: where consumer-timeout's broken variants (declared in meta.ts;
 * MQLAB_FAULT=consumer-timeout:<name>, src/lab/fault.ts) replace a step of what lab.ts sets up
 * (`TimeoutSteps`). lab.ts reads as the correct experiment; each entry here is one way to get it wrong.
 */
import type { Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';

/** the steps of the experiment a broken variant may replace */
export interface TimeoutSteps {
  /** the consumer timeout the lab gives its queues (null: none, the broker's 30 min) */
  timeoutMs: number | null;
  /** the type the `classic` queue is declared with */
  classicType: 'classic' | 'quorum';
  /** what the ignoring client does when the broker cancels it (amqplib calls its handler with null) */
  onCancel(consumeAgain: () => Promise<void>): Promise<void>;
}

export const variants = (): Variants<TimeoutSteps, Fault> => ({
  'no-consumer-timeout': { timeoutMs: null },
  'classic-as-quorum': { classicType: 'quorum' },
  'reconsume-on-cancel': { onCancel: (consumeAgain) => consumeAgain() },
});
