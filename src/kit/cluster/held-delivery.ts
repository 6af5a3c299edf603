/**
 * A delivery held through a fault, for labs that cut or stop the node a consumer sits on: one message in a
 * quorum queue, taken by a consumer on that node (prefetch 1, never acked), and a second consumer on a node
 * that stays up, which records when the queue gives that message to it instead (and acks it). The queue's
 * own leader must stay on the majority's side (declared through `other`, x-queue-leader-locator
 * client-local): the leader decides when a lost consumer's deliveries come back (rabbit_fifo
 * `{down, Pid, noconnection}`: at once below 4.3.0, after consumer_disconnected_timeout from 4.3.0).
 */
import amqp from 'amqplib';
import type { Channel, ChannelModel } from 'amqplib';
import { closeChannel, closeConnection } from '../../broker/broker.js';
import { EnvError, LabError } from '../../core/errors.js';
import { deferred, within } from '../../core/time.js';
import { maskUrl } from '../../core/urls.js';
import type { ClusterNode } from '../../services/cluster.js';

/** the one message's id */
const HELD_ID = 'held-1';

export interface HeldDelivery {
  /** the node whose consumer holds the message */
  holder: string;
  /** the node whose consumer gets it when the queue takes it back */
  other: string;
  /** when (Date.now) the holder's consumer got it */
  takenAt: number;
  /** when `other`'s consumer got it, whether redelivered, its x-delivery-count (null: none); null: not (yet) */
  returned(): Returned | null;
  /** both consumers' connections closed (bounded: a node that answers nothing is given up) */
  close(): Promise<void>;
}

interface Returned {
  at: number;
  redelivered: boolean;
  deliveryCount: number | null;
}

interface Client {
  connection: ChannelModel;
  channel: Channel;
}

async function consumerOn(node: ClusterNode): Promise<Client> {
  const connection = await amqp.connect(node.amqpUrl, { timeout: 10_000 }).catch((err: Error) => {
    throw new EnvError(
      `cannot connect to ${node.name} at ${maskUrl(node.amqpUrl)}: ${err.message}`,
      'run `mqlab status`',
    );
  });
  // a node cut off, restarted (3.10: the minority) or a queue that goes: this client's end, not the run's
  connection.on('error', () => {});
  const channel = await connection.createChannel();
  channel.on('error', () => {});
  await channel.prefetch(1);
  return { connection, channel };
}

/** closed, or its socket destroyed when the close is not answered within 5 s */
async function end(c: Client): Promise<void> {
  const closing = (async () => {
    await closeChannel(c.channel);
    await closeConnection(c.connection);
  })();
  await within(closing, 5000, 'a consumer close').catch(() => {
    const socket = (c.connection as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
    socket?.destroy();
  });
}

/** one message published to `queue` (already declared, empty) through `other`, taken by `holder`'s consumer, then `other`'s consumer waits */
export async function holdDelivery(queue: string, holder: ClusterNode, other: ClusterNode): Promise<HeldDelivery> {
  const first = await consumerOn(holder);
  let second: Client | null = null;
  try {
    const taken = deferred<number>();
    await first.channel.consume(queue, (msg) => {
      if (msg) taken.resolve(Date.now());
    });
    const publisher = await amqp.connect(other.amqpUrl, { timeout: 10_000 });
    try {
      const ch = await publisher.createConfirmChannel();
      ch.sendToQueue(queue, Buffer.from(HELD_ID), { messageId: HELD_ID, persistent: true });
      await within(ch.waitForConfirms(), 10_000, `the confirm of ${HELD_ID}`);
    } finally {
      await closeConnection(publisher);
    }
    const takenAt = await within(taken.promise, 10_000, `${holder.name}'s consumer getting ${HELD_ID}`).catch(() => {
      throw new LabError(`${holder.name}'s consumer of ${queue} got no message within 10 s of its publish`);
    });
    const s = await consumerOn(other);
    second = s;
    let returned: Returned | null = null;
    await s.channel.consume(queue, (msg) => {
      if (!msg) return;
      const count: unknown = msg.properties.headers?.['x-delivery-count'];
      if (msg.properties.messageId === HELD_ID)
        returned ??= {
          at: Date.now(),
          redelivered: msg.fields.redelivered,
          deliveryCount: typeof count === 'number' ? count : null,
        };
      s.channel.ack(msg);
    });
    return {
      holder: holder.name,
      other: other.name,
      takenAt,
      returned: () => returned,
      close: async () => {
        await Promise.all([end(first), end(s)]);
      },
    };
  } catch (err) {
    await Promise.all([end(first), second ? end(second) : Promise.resolve()]);
    throw err;
  }
}
