/**
 * amqplib has no automatic recovery: this is mqlab's. connectAny() opens a connection and a confirm
 * channel on the first of several AMQP URLs that accepts (the next on failure, bounded backoff,
 * bounded total wait). ReconnectingPublisher keeps a ConfirmLedger of its publishes, so after a
 * loss `unconfirmed()` names the ids to resend over the new connection; ReconnectingConsumer
 * subscribes again by itself after a loss.
 */
import type { ChannelModel, ConfirmChannel, Options } from 'amqplib';
import { EnvError } from '../core/errors.js';
import { maskUrl } from '../core/urls.js';
import { sleep } from '../core/time.js';
import { closeChannel, closeConnection, delivery, type Delivery } from './broker.js';
import { connectError, isNackError, Nacked } from './errors.js';
import { openLink } from './link.js';
import { attemptPlan, ConfirmLedger, DEFAULT_BACKOFF, type Backoff } from './reconnect-plan.js';

export interface ReconnectOptions {
  /** the nodes to try, in order (e.g. every member of a cluster) */
  urls: string[];
  /** give up when no URL accepted a connection within this long (per (re)connect) */
  maxWaitMs: number;
  backoff?: Backoff;
  /** each failed try: the URL (mask it before printing) and the one-line cause */
  onAttempt?: (url: string, cause: string) => void;
}

interface Link {
  connection: ChannelModel;
  channel: ConfirmChannel;
  url: string;
  /** index of `url` in the options' urls */
  index: number;
}

/** connect to the first URL that accepts, starting after index `after` (-1: from the first) */
export async function connectAny(opts: ReconnectOptions, after = -1): Promise<Link> {
  const deadline = Date.now() + opts.maxWaitMs;
  let last = 'no URL given';
  for (const { index, waitMs } of attemptPlan(opts.urls.length, opts.backoff ?? DEFAULT_BACKOFF, after)) {
    if (Date.now() + waitMs >= deadline) break;
    if (waitMs) await sleep(waitMs);
    const url = opts.urls[index]!;
    try {
      const timeout = Math.max(500, Math.min(5000, deadline - Date.now()));
      return { ...(await openLink(url, timeout)), url, index };
    } catch (err) {
      last = (err instanceof EnvError ? err : connectError(err, url)).message;
      opts.onAttempt?.(url, last);
    }
  }
  throw new EnvError(
    `no RabbitMQ node accepted a connection within ${Math.round(opts.maxWaitMs / 1000)} s (${opts.urls.map(maskUrl).join(', ')}): ${last}`,
    'run `mqlab up` (or `mqlab status` to see which nodes run)',
  );
}

/** calls `listener` once when the link dies without close() */
function watchLoss(link: Link, isClosing: () => boolean, listener: (cause: string) => void): void {
  let heard = false;
  const lost = (err?: unknown) => {
    if (heard || isClosing()) return;
    heard = true;
    listener(String((err as Error | undefined)?.message ?? 'connection closed'));
  };
  link.connection.on('close', lost);
  link.connection.on('error', lost);
}

interface OutgoingMessage {
  exchange: string;
  routingKey: string;
  body: Buffer;
  props: Options.Publish;
}

/** a publish whose connection died before the broker confirmed it: resend after reconnect() */
export class PublishLost extends Error {
  constructor(readonly messageId: string) {
    super(`message ${messageId}: the connection died before the broker confirmed it`);
    this.name = 'PublishLost';
  }
}

export class ReconnectingPublisher {
  readonly ledger = new ConfirmLedger<OutgoingMessage>();
  private link: Link | null;
  private closing = false;
  private lastIndex = 0;
  private lostListeners: ((cause: string) => void)[] = [];
  /** connections opened so far (1 after open) */
  connections = 1;

  private constructor(
    private readonly opts: ReconnectOptions,
    link: Link,
  ) {
    this.link = link;
    this.lastIndex = link.index;
    this.watch(link);
  }

  static async open(opts: ReconnectOptions): Promise<ReconnectingPublisher> {
    return new ReconnectingPublisher(opts, await connectAny(opts));
  }

  /** the URL of the live connection (null after a loss, until reconnect()) */
  get url(): string | null {
    return this.link?.url ?? null;
  }

  /** hear every loss of the connection (once per connection) */
  onLost(listener: (cause: string) => void): void {
    this.lostListeners.push(listener);
  }

  private watch(link: Link): void {
    watchLoss(
      link,
      () => this.closing,
      (cause) => {
        if (this.link === link) this.link = null;
        this.ledger.loseAllPending();
        for (const l of this.lostListeners) l(cause);
      },
    );
  }

  /**
   * Publish (persistent, with the message id as the ledger's key) and wait for the confirm.
   * Rejects with PublishLost when the connection dies first, LabError on a nack.
   */
  publish(
    exchange: string,
    routingKey: string,
    body: string | Buffer,
    props: Options.Publish & { messageId: string },
  ): Promise<void> {
    const message: OutgoingMessage = {
      exchange,
      routingKey,
      body: Buffer.from(body),
      props: { persistent: true, ...props },
    };
    const id = props.messageId;
    this.ledger.published(id, message);
    const link = this.link;
    if (!link) {
      this.ledger.settle(id, 'lost');
      return Promise.reject(new PublishLost(id));
    }
    return new Promise<void>((resolve, reject) => {
      const done = (err: unknown) => {
        if (!err) {
          this.ledger.settle(id, 'confirmed');
          resolve();
        } else if (isNackError(err)) {
          this.ledger.settle(id, 'nacked');
          reject(new Nacked(id));
        } else {
          this.ledger.settle(id, 'lost');
          reject(new PublishLost(id));
        }
      };
      try {
        link.channel.publish(exchange, routingKey, message.body, message.props, done);
      } catch (err) {
        done(err); // the channel closed under us
      }
    });
  }

  /** ids published and not confirmed: lost with a connection, or nacked */
  unconfirmed(): string[] {
    return this.ledger.unconfirmed();
  }

  /** publish every unconfirmed message again, as it was; resolves when all are confirmed */
  resendUnconfirmed(): Promise<void[]> {
    return Promise.all(
      this.unconfirmed().map((id) => {
        const m = this.ledger.messageOf(id)!;
        return this.publish(m.exchange, m.routingKey, m.body, { ...m.props, messageId: id });
      }),
    );
  }

  /**
   * A fresh confirm channel on the live connection; the old one is closed. Call it when no publish
   * awaits its confirm (one that does is lost with the old channel: PublishLost). RabbitMQ 3.10
   * needs it after a quorum queue's leader's node died: a channel whose first publish to the queue
   * found that node down nacks every later publish to it (capabilities.ts: quorumPublishNackSticksToChannel).
   * False when there is no live connection (reconnect() instead).
   */
  async renewChannel(): Promise<boolean> {
    const link = this.link;
    if (!link) return false;
    const old = link.channel;
    try {
      link.channel = await link.connection.createConfirmChannel();
    } catch {
      return false; // the connection is going away: its loss watch clears the link
    }
    link.channel.on('error', () => {});
    await closeChannel(old);
    return true;
  }

  /** a new connection and confirm channel, trying the URLs after the one that was in use */
  async reconnect(): Promise<string> {
    const before = this.link;
    if (before) {
      this.closing = true;
      await closeConnection(before.connection);
      this.closing = false;
      this.ledger.loseAllPending();
    }
    const previous = before?.index ?? this.lastIndex;
    const link = await connectAny(this.opts, previous);
    this.link = link;
    this.lastIndex = link.index;
    this.connections++;
    this.watch(link);
    return link.url;
  }

  async close(): Promise<void> {
    this.closing = true;
    const link = this.link;
    this.link = null;
    if (link) {
      await closeChannel(link.channel);
      await closeConnection(link.connection);
    }
  }
}

interface ConsumerOptions extends ReconnectOptions {
  queue: string;
  prefetch: number;
  /** one delivery at a time, in order; a throw fails `failure` */
  handler: (m: Delivery, url: string) => void | Promise<void>;
}

/**
 * A manual-ack consumer that survives the loss of its node: on a loss it connects to the next URL
 * (connectAny) and subscribes again. Deliveries that were unacked on the dead connection come back
 * from the broker (redelivered); an ack on a dead channel is dropped, not thrown.
 */
export class ReconnectingConsumer {
  private link: Link | null = null;
  private closing = false;
  private chain: Promise<void> = Promise.resolve();
  private fail: (e: unknown) => void = () => {};
  /** rejects when the handler throws or no node accepts a reconnect in time */
  readonly failure: Promise<never>;
  /** subscriptions made so far (1 + reconnects) */
  subscriptions = 0;

  private constructor(private readonly opts: ConsumerOptions) {
    this.failure = new Promise<never>((_, reject) => (this.fail = reject));
    this.failure.catch(() => {});
  }

  static async start(opts: ConsumerOptions): Promise<ReconnectingConsumer> {
    const c = new ReconnectingConsumer(opts);
    await c.subscribe(-1);
    return c;
  }

  get url(): string | null {
    return this.link?.url ?? null;
  }

  private async subscribe(after: number): Promise<void> {
    const link = await connectAny(this.opts, after);
    if (this.closing) return void (await closeConnection(link.connection));
    this.link = link;
    this.subscriptions++;
    watchLoss(
      link,
      () => this.closing,
      () => {
        this.link = null;
        this.subscribe(link.index).catch((err) => this.fail(err));
      },
    );
    const ch = link.channel;
    await ch.prefetch(this.opts.prefetch);
    await ch.consume(
      this.opts.queue,
      (msg) => {
        if (!msg) return; // cancelled by the broker (its node went away): the loss watch reconnects
        const m = tolerant(delivery(ch, this.opts.queue, msg));
        this.chain = this.chain.then(() => this.opts.handler(m, link.url)).catch((e) => this.fail(e));
      },
      { noAck: false },
    );
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.chain.catch(() => {});
    const link = this.link;
    this.link = null;
    if (link) {
      await closeChannel(link.channel);
      await closeConnection(link.connection);
    }
  }
}

/** a delivery whose ack/nack/reject on a channel that already died are no-ops (the broker redelivers) */
function tolerant(m: Delivery): Delivery {
  const safe = (f: () => void) => {
    try {
      f();
    } catch {
      /* channel closed: the message is redelivered on the next subscription */
    }
  };
  return {
    ...m,
    ack: () => safe(() => m.ack()),
    nack: (r) => safe(() => m.nack(r)),
    reject: (r) => safe(() => m.reject(r)),
  };
}
