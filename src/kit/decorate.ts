/**
 * Decorating the broker handle a lab already holds, for a broken variant (src/lab/variant.ts: `broker`): the
 * engine hands the variant `ctx.broker` before the lab gets it, so a variant that changes how a
 * delivery is settled, or adds a publish once a consumer is cancelled, needs no hook in lab.ts.
 */
import type { Broker, Delivery } from '../broker/broker.js';
import { decorate } from '../core/decorate.js';

type Handler = (m: Delivery) => void | Promise<void>;

/** how a variant changes the consumers of one queue */
export interface ConsumeChange {
  /** the handler the broker calls, made from the lab's */
  handler?: (handler: Handler) => Handler;
  /** the consumer's cancel, made from its own (e.g. one more publish once it is cancelled) */
  cancel?: (cancel: () => Promise<void>) => Promise<void>;
}

/** the broker, its consumers of `queue` changed as `change` says (other queues' as they are) */
export function onConsume(broker: Broker, queue: string, change: ConsumeChange): Broker {
  const consume: Broker['consume'] = async (q, handler, opts) => {
    if (q !== queue) return broker.consume(q, handler, opts);
    const consumer = await broker.consume(q, change.handler ? change.handler(handler) : handler, opts);
    const cancel = change.cancel;
    return cancel ? { ...consumer, cancel: () => cancel(() => consumer.cancel()) } : consumer;
  };
  return decorate(broker, { consume });
}
