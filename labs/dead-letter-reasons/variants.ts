/**
 * TEST ONLY: where dead-letter-reasons' broken variants (declared in meta.ts;
 * MQLAB_FAULT=dead-letter-reasons:<name>, src/lab/fault.ts) replace a step of the producer or the
 * consumers lab.ts runs (`ReasonSteps`). lab.ts reads as the correct experiment.
 */
import type { Broker, Delivery, Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import type { names } from './names.js';
import { TWICE_AGAIN } from './names.js';
import type { PathName } from './reasons.js';

/** a consumer's settle, logged with its status */
export type Settle = (m: Delivery, status: string, act: () => void) => void;

/** the steps of the experiment a broken variant may replace */
export interface ReasonSteps {
  /** how a message of a path is published: through the business exchange, with the path as routing key */
  publish(path: PathName, id: string, props: { expiration?: string }): Promise<unknown>;
  /** the two max-length messages, in publish order */
  maxLengthOrder: readonly [string, string];
  /** before the paths' messages are sent: nothing */
  beforeSend(): Promise<unknown>;
  /** the delivery-limit consumer: reject with requeue, which counts toward x-delivery-limit */
  settleAtLimit(m: Delivery, settle: Settle): void;
  /** the twice consumer's n-th delivery: rejected, so the broker dead-letters it again */
  settleTwice(m: Delivery, n: number, settle: Settle): void | Promise<void>;
  /** what is published once every letter arrived: nothing, the producer has stopped */
  afterDead(): Promise<unknown>;
}

export const variants = (
  correct: ReasonSteps,
  broker: Broker,
  name: ReturnType<typeof names>,
): Variants<ReasonSteps, Fault> => ({
  // straight into the work queues, not through the business exchange (twice still goes that way)
  'default-exchange': {
    publish: (path, id, props) =>
      path === 'twice'
        ? correct.publish(path, id, props)
        : broker.sendConfirmed(name.work[path], id, { messageId: id, ...props }),
  },
  'publish-newest-first': { maxLengthOrder: ['newest', 'oldest'] },
  // the application puts copies of the two TTL paths' messages into the dead-letter exchange itself,
  // before the real ones are sent: no x-death, expiration kept
  'app-dead-letter': {
    beforeSend: async () => {
      await broker.publishConfirmed(name.dead, 'queue-ttl', 'queue-ttl', { messageId: 'queue-ttl' });
      await broker.publishConfirmed(name.dead, 'message-ttl', 'message-ttl', {
        messageId: 'message-ttl',
        expiration: '60000',
      });
    },
  },
  // a consumer that rejects for good at once, so the limit never counts
  'limit-gives-up': { settleAtLimit: (m, settle) => settle(m, 'rejected', () => m.reject(false)) },
  // the second death is the application copying the message itself, no broker dead-lettering
  'twice-app-copy': {
    settleTwice: async (m, n, settle) => {
      if (n !== 2) return correct.settleTwice(m, n, settle);
      await broker.publishConfirmed(name.dead, TWICE_AGAIN, m.body, { messageId: m.messageId, headers: m.headers });
      settle(m, 'copied_by_app', () => m.ack());
    },
  },
  // a producer that was not stopped puts one more message on a work queue
  'late-publish': { afterDead: () => broker.sendConfirmed(name.work.reject, 'late', { messageId: 'late' }) },
});
