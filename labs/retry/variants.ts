/**
 * TEST ONLY: where the retry lab's broken variants (declared in meta.ts; MQLAB_FAULT=retry:<name>,
 * src/lab/fault.ts) replace a step of the protocol lab.ts follows (`RetryPolicy`). lab.ts reads as the
 * correct protocol; each entry here is one way to get it wrong.
 */
import type { Broker, Delivery, Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import type { names } from './names.js';

/** the steps of the retry protocol a broken variant may replace */
export interface RetryPolicy {
  /** how the poison message is settled */
  settlePoison(m: Delivery): void;
  /** where a retry copy goes */
  retryQueue: string;
  /** the attempt number a retry copy carries */
  nextAttempt(attempt: number): number;
  /** the business effect of a message */
  commit(id: string): Promise<unknown>;
  /** what is sent after the commit, before the ack */
  afterCommit(id: string, attempt: number): Promise<unknown>;
  /** the work queue's handler, as it is given to the broker */
  wrapHandler(handle: (m: Delivery) => Promise<void>): (m: Delivery) => Promise<void>;
}

export const variants = (
  correct: RetryPolicy,
  name: ReturnType<typeof names>,
  broker: Broker,
  lastAttempt: number,
): Variants<RetryPolicy, Fault> => ({
  'ack-poison': { settlePoison: (m) => m.ack() },
  'skip-delay': { retryQueue: name.work },
  'skip-attempt': { nextAttempt: (attempt) => attempt + 2 },
  'no-commit': { commit: async (id) => (id === 'transient' ? undefined : correct.commit(id)) },
  'extra-copy': {
    afterCommit: async (id, attempt) => {
      if (id === 'transient' && attempt === lastAttempt)
        await broker.sendConfirmed(name.delay, id, { messageId: id, headers: { attempt: attempt + 1 } });
    },
  },
  'requeue-healthy': {
    // the healthy message's first ack becomes a nack with requeue: the broker delivers it again
    wrapHandler: (handle) => {
      let first = true;
      return (m) => {
        if (m.messageId !== 'healthy' || !first) return handle(m);
        first = false;
        return handle({ ...m, ack: () => m.nack(true) });
      };
    },
  },
});
