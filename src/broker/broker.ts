/**
 * One AMQP connection with one confirm channel: publishConfirmed, push consumers, depth checks.
 * Everything a lab does with the broker goes through here, so errors map to one place.
 */
import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage, Message, Options } from 'amqplib';
import { isNackError, Nacked } from './errors.js';
import { openLink } from './link.js';
import { LabError } from '../core/errors.js';
import { lossCause } from '../core/lost.js';
import { text } from '../core/text.js';

export interface Delivery {
  readonly body: string;
  readonly messageId: string | undefined;
  readonly headers: Record<string, unknown>;
  readonly redelivered: boolean;
  readonly queue: string;
  readonly raw: ConsumeMessage;
  ack(): void;
  nack(requeue: boolean): void;
  reject(requeue: boolean): void;
}

export interface Consumer {
  tag: string;
  cancel(): Promise<void>;
}

/**
 * amqplib's publish options, except that the message id may be undefined: a delivery that carried
 * none (Delivery.messageId) is copied on without one
 */
export type PublishProps = Omit<Options.Publish, 'messageId'> & { messageId?: string | undefined };

export class Broker {
  private returned = new Map<string, string>();
  private closed = false;
  /** the connection ended (closed by either side, or lost) */
  private ended = false;

  private constructor(
    readonly connection: ChannelModel,
    readonly channel: ConfirmChannel,
    readonly product: string,
    readonly version: string,
    readonly url: string,
  ) {
    connection.once('close', () => (this.ended = true));
    channel.on('return', (msg: Message) => {
      const id = String(msg.properties.messageId ?? '');
      const f = msg.fields as unknown as { replyCode: number; replyText: string };
      this.returned.set(id, `${f.replyCode} ${f.replyText}`);
    });
  }

  static async connect(url: string): Promise<Broker> {
    const { connection, channel } = await openLink(url, 5000);
    const props = connection.connection.serverProperties as unknown as Record<string, unknown>;
    return new Broker(connection, channel, text(props.product, 'RabbitMQ'), text(props.version, '0'), url);
  }

  /**
   * Publish and wait for the broker's confirm. Mandatory by default: an unroutable message
   * (its basic.return arrives before its ack) is an error, and so is a nack. Publishes may
   * overlap; a return is matched to its publish by message id.
   */
  async publishConfirmed(
    exchange: string,
    routingKey: string,
    body: string | Buffer,
    props: PublishProps = {},
  ): Promise<void> {
    const { messageId, ...rest } = props;
    const options: Options.Publish = {
      persistent: true,
      mandatory: true,
      ...rest,
      ...(messageId === undefined ? {} : { messageId }),
    };
    const id = messageId ?? '';
    const where = `${exchange || '(default exchange)'}/${routingKey}`;
    this.returned.delete(id);
    await new Promise<void>((resolve, reject) => {
      this.channel.publish(exchange, routingKey, Buffer.from(body), options, (err) =>
        err
          ? reject(isNackError(err) ? new Nacked(id, where) : new LabError(`message ${id} to ${where}: ${String(err)}`))
          : resolve(),
      );
    });
    const returned = this.returned.get(id);
    this.returned.delete(id);
    if (returned && options.mandatory)
      throw new LabError(`message ${id || '(no id)'} to ${where} was unroutable (${returned})`);
  }

  /** the connection is still there and close() was not called */
  get open(): boolean {
    return !this.closed && !this.ended;
  }

  /** publish to a queue through the default exchange */
  sendConfirmed(queue: string, body: string | Buffer, props: PublishProps = {}): Promise<void> {
    return this.publishConfirmed('', queue, body, props);
  }

  /**
   * A push consumer (manual ack). Handler calls run one at a time in delivery order;
   * a throwing handler fails the returned `failure` promise instead of crashing the process.
   */
  async consume(
    queue: string,
    handler: (m: Delivery) => void | Promise<void>,
    opts: { prefetch?: number; channel?: ConfirmChannel } = {},
  ): Promise<Consumer & { failure: Promise<never> }> {
    const ch = opts.channel ?? this.channel;
    if (opts.prefetch) await ch.prefetch(opts.prefetch);
    let chain: Promise<void> = Promise.resolve();
    let fail: (e: unknown) => void = () => {};
    const failure = new Promise<never>((_, reject) => (fail = reject));
    failure.catch(() => {});
    const { consumerTag } = await ch.consume(
      queue,
      (msg) => {
        if (!msg) return fail(new LabError(`the broker cancelled the consumer on ${queue}`));
        const m = delivery(ch, queue, msg);
        chain = chain.then(() => handler(m)).catch(fail);
      },
      { noAck: false },
    );
    return {
      tag: consumerTag,
      failure,
      cancel: async () => {
        if (!this.closed) await ch.cancel(consumerTag).catch(() => {});
      },
    };
  }

  /** basic.get (manual ack) — for sampling, not for consuming loops */
  async get(queue: string): Promise<Delivery | null> {
    const msg = await this.channel.get(queue, { noAck: false });
    return msg ? delivery(this.channel, queue, msg as unknown as ConsumeMessage) : null;
  }

  /** Ready messages in a queue, as the broker reports them (passive declare on a throwaway channel). */
  async depth(queue: string): Promise<number> {
    const ch = await this.connection.createChannel();
    ch.on('error', () => {});
    try {
      return (await ch.checkQueue(queue)).messageCount;
    } finally {
      await closeChannel(ch);
    }
  }

  /** Ready messages and consumers of a queue, as the broker reports them now (passive declare). */
  async passive(queue: string): Promise<{ ready: number; consumers: number }> {
    const ch = await this.connection.createChannel();
    ch.on('error', () => {});
    try {
      const ok = await ch.checkQueue(queue);
      return { ready: ok.messageCount, consumers: ok.consumerCount };
    } finally {
      await closeChannel(ch);
    }
  }

  async newChannel(): Promise<ConfirmChannel> {
    const ch = await this.connection.createConfirmChannel();
    ch.on('error', () => {});
    return ch;
  }

  /**
   * `listener` hears once, at once, when the connection ends without close() being called: the
   * socket died, or the broker shut down (connection-forced). A connection the broker closed for a
   * protocol error (a lab's mistake) is not a loss: the failing operation reports it.
   */
  onLost(listener: (cause: string) => void): void {
    let heard = false;
    const lost = (err?: unknown) => {
      if (this.closed || heard) return;
      const code = (err as { code?: unknown } | undefined)?.code;
      if (typeof code === 'number' && code !== 320) return;
      heard = true;
      listener(lossCause(err, 'connection lost during the run'));
    };
    this.connection.on('close', lost);
    this.connection.on('error', lost);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Close the channel first: it settles the channel's acks at the queues. Measured on 3.10.8: a
    // quorum-queue ack followed at once by connection.close can be lost (the message comes back).
    await closeChannel(this.channel);
    await closeConnection(this.connection);
  }
}

/**
 * `close()` of an amqplib channel or connection, settled also by its 'close' event. amqplib's own
 * close waits for the broker's CloseOk, which never comes when the connection ends first: a Ctrl-C
 * closes a lab's connection in the middle of its calls (`depth()` hung in 43 of 300 such races on
 * RabbitMQ 3.10.8, and the lab with it), and a node killed during a connection's close handshake
 * (a cut socket: 30 of 30 closes hung). amqplib then only emits 'close'.
 */
function closed(target: {
  once(event: 'close', listener: () => void): unknown;
  close(): Promise<void>;
}): Promise<void> {
  return new Promise<void>((resolve) => {
    target.once('close', () => resolve());
    try {
      target.close().then(
        () => resolve(),
        () => resolve(),
      );
    } catch {
      resolve(); // closed already: amqplib throws at once
    }
  });
}

export const closeChannel = (ch: Channel | ConfirmChannel): Promise<void> => closed(ch);
export const closeConnection = (connection: ChannelModel): Promise<void> => closed(connection);

export function delivery(ch: ConfirmChannel, queue: string, msg: ConsumeMessage): Delivery {
  return {
    body: msg.content.toString('utf8'),
    messageId: msg.properties.messageId as string | undefined,
    headers: msg.properties.headers ?? {},
    redelivered: msg.fields.redelivered,
    queue,
    raw: msg,
    ack: () => ch.ack(msg),
    nack: (requeue) => ch.nack(msg, false, requeue),
    reject: (requeue) => ch.reject(msg, requeue),
  };
}
