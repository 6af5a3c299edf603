/**
 * One push consumer on the dead-letter queue: each dead letter, acked, resolves the wait for its
 * message id with what the broker sent (the x-death reason, x-delivery-count, redelivered).
 */
import { type LabContext, closeChannel, deferred, newestDeath, text } from '../../src/kit/index.js';

interface DeadLetter {
  reason: string;
  /** x-delivery-count of the dead-lettered copy, raw (undefined: absent) */
  deliveryCount: unknown;
  redelivered: boolean;
}

export interface DeadLetters {
  /** resolves when the dead letter with this message id arrives */
  of(messageId: string): Promise<DeadLetter>;
  /** the dead letter, if it arrived */
  got(messageId: string): DeadLetter | undefined;
  close(): Promise<void>;
}

export async function watchDeadLetters(ctx: LabContext, queue: string): Promise<DeadLetters> {
  const waits = new Map<string, ReturnType<typeof deferred<DeadLetter>>>();
  const arrived = new Map<string, DeadLetter>();
  const wait = (id: string) => waits.get(id) ?? waits.set(id, deferred<DeadLetter>()).get(id)!;
  const channel = await ctx.broker.newChannel();
  const consumer = await ctx.broker.consume(
    queue,
    (m) => {
      const letter = {
        reason: newestDeath(m.headers)?.reason ?? 'none',
        deliveryCount: m.headers['x-delivery-count'],
        redelivered: m.redelivered,
      };
      m.ack();
      const id = String(m.messageId);
      arrived.set(id, letter);
      ctx.log.emit('dead-letter', {
        queue,
        messageId: id,
        reason: letter.reason,
        deliveryCount: text(letter.deliveryCount, 'absent'),
        redelivered: m.redelivered,
        status: 'received',
      });
      wait(id).resolve(letter);
    },
    { prefetch: 10, channel },
  );
  return {
    of: (id) => wait(id).promise,
    got: (id) => arrived.get(id),
    async close() {
      await consumer.cancel();
      await closeChannel(channel);
    },
  };
}
