/**
 * How many messages a queue still holds for a channel that has finished with it, as the broker
 * reports it. Any delivery the channel still holds unacked is first handed back (basic.recover),
 * then basic.get takes what is ready. Both go through the same channel, after its acks, so the
 * broker applies them in that order: a delivery that was never acked is counted, which a plain
 * message-count read right after closing the channel can miss (the return is asynchronous).
 * What is found is put back (nack requeue) so it stays visible to whoever looks next.
 */
import type { ConfirmChannel } from 'amqplib';

export async function messagesLeft(ch: ConfirmChannel, queue: string): Promise<{ count: number; ids: string[] }> {
  await ch.recover();
  const ids: string[] = [];
  for (let m = await ch.get(queue, { noAck: false }); m; m = await ch.get(queue, { noAck: false })) {
    ids.push(String(m.properties.messageId ?? ''));
  }
  if (ids.length) ch.nackAll(true);
  return { count: ids.length, ids };
}
