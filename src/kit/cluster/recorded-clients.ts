/**
 * Clients whose every step goes into a History (src/kit/cluster/history.ts), for labs that fail a node under
 * them: a paced producer bound to one node that gives each publish a confirm deadline (a node cut
 * off or frozen answers nothing: the publish times out rather than fails), a resender that sends
 * every id the history holds no confirm for again, and a consumer that drains a queue into the history.
 */
import amqp from 'amqplib';
import type { ChannelModel, ConfirmChannel } from 'amqplib';
import { closeChannel, closeConnection } from '../../broker/broker.js';
import { connectAny, ReconnectingConsumer } from '../../broker/reconnect.js';
import { EnvError, LabError } from '../../core/errors.js';
import { analyse, type History } from './history.js';
import { sleep, within } from '../../core/time.js';
import { maskUrl } from '../../core/urls.js';

export interface ProducerOptions {
  /** publishes awaiting their confirm at once */
  window: number;
  /** one publish every this many ms (at most) */
  paceMs: number;
  /** a publish with no confirm after this long is recorded as timed out (its confirm may still come) */
  confirmTimeoutMs: number;
  /** what the producer makes of a publish past its deadline (default: a timeout, `history.timeout`) */
  timedOut?: (history: History, id: number, node: string) => void;
}

/** a publish past its confirm deadline, as a producer should record it: timed out, not confirmed */
export const recordTimeout = (history: History, id: number, node: string): void => history.timeout(id, node);

/** a producer on one node: ids from `nextId`, until stop() */
export class PacedProducer {
  private stopping = false;
  private inflight = 0;
  private loop: Promise<void> = Promise.resolve();
  private lostWith: string | null = null;
  /** publishes sent, confirms received, timeouts, nacks (counts) */
  readonly counts = { sent: 0, confirmed: 0, timedOut: 0, nacked: 0, lost: 0 };

  private constructor(
    readonly node: string,
    private readonly connection: ChannelModel,
    private readonly channel: ConfirmChannel,
    private readonly history: History,
    private readonly opts: ProducerOptions,
  ) {
    const lost = (err?: unknown) => (this.lostWith ??= String((err as Error | undefined)?.message ?? 'closed'));
    connection.on('close', lost);
    connection.on('error', lost);
    channel.on('error', lost);
  }

  static async open(url: string, node: string, history: History, opts: ProducerOptions): Promise<PacedProducer> {
    const connection = await amqp.connect(url, { timeout: 10_000, noDelay: true }).catch((err: Error) => {
      throw new EnvError(`cannot connect to ${node} at ${maskUrl(url)}: ${err.message}`, 'run `mqlab status`');
    });
    const channel = await connection.createConfirmChannel();
    return new PacedProducer(node, connection, channel, history, opts);
  }

  /** the connection's loss, when it died (null: it lives) */
  get lost(): string | null {
    return this.lostWith;
  }

  /** publish `nextId()` to `queue` (default exchange) every paceMs, at most `window` unconfirmed, until stop() */
  start(queue: string, nextId: () => number): void {
    this.loop = (async () => {
      while (!this.stopping && !this.lostWith) {
        if (this.inflight >= this.opts.window) {
          await sleep(5);
          continue;
        }
        this.publishOne(queue, nextId());
        await sleep(this.opts.paceMs);
      }
    })();
  }

  private publishOne(queue: string, id: number): void {
    const h = this.history;
    h.publish(id, this.node);
    this.counts.sent++;
    this.inflight++;
    let settled = false;
    const free = () => {
      if (settled) return;
      settled = true;
      this.inflight--;
    };
    const timer = setTimeout(() => {
      if (settled) return;
      (this.opts.timedOut ?? recordTimeout)(h, id, this.node);
      this.counts.timedOut++;
      free();
    }, this.opts.confirmTimeoutMs);
    timer.unref();
    const done = (err: unknown) => {
      clearTimeout(timer);
      const late = settled;
      free();
      if (!err) {
        h.confirm(id, this.node); // also when it comes after the deadline: the history says when
        if (!late) this.counts.confirmed++;
      } else if (/nack/i.test(String((err as Error).message))) {
        h.nack(id, this.node);
        this.counts.nacked++;
      } else if (!late) {
        h.lost(id, this.node);
        this.counts.lost++;
      }
    };
    try {
      this.channel.publish('', queue, Buffer.from(String(id)), { persistent: true, messageId: String(id) }, done);
    } catch (err) {
      done(err);
    }
  }

  /** stop publishing; wait up to `graceMs` for the outstanding confirms (late ones are recorded as they come) */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    await this.loop;
    const end = Date.now() + graceMs;
    while (this.inflight > 0 && Date.now() < end && !this.lostWith) await sleep(50);
  }

  /**
   * give the node up as a client does whose confirms stopped: publishing ends and the socket is
   * destroyed at once (an AMQP close would wait on a node that answers nothing); the ids without a
   * confirm stay in the history for a resend elsewhere
   */
  async abandon(): Promise<void> {
    this.stopping = true;
    await this.loop.catch(() => {});
    this.abandoned = true;
    const socket = (this.connection as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
    socket?.destroy();
  }

  private abandoned = false;

  async close(): Promise<void> {
    this.stopping = true;
    await this.loop.catch(() => {});
    if (this.abandoned) return;
    await closeChannel(this.channel);
    await closeConnection(this.connection);
  }
}

/**
 * Send every id the history holds no confirm for again, through `url` (`node`), until each is
 * confirmed; bounded by `timeoutMs` (a LabError naming how many are left). `also`: ids sent once
 * more besides (a broken variant's seam). The count sent.
 */
export async function resendUnconfirmed(
  history: History,
  url: string,
  node: string,
  queue: string,
  timeoutMs: number,
  also: readonly number[] = [],
): Promise<number> {
  const end = Date.now() + timeoutMs;
  let resent = 0;
  const { connection, channel } = await connectAny({ urls: [url], maxWaitMs: 30_000 });
  const send = (ids: readonly number[]) =>
    Promise.all(
      ids.map(
        (id) =>
          new Promise<void>((resolve) => {
            history.publish(id, node);
            resent++;
            const body = Buffer.from(String(id));
            channel.publish('', queue, body, { persistent: true, messageId: String(id) }, (err) => {
              if (err) history.nack(id, node);
              else history.confirm(id, node);
              resolve();
            });
          }),
      ),
    );
  try {
    await send(also);
    for (;;) {
      const confirmed = analyse(history.entries).confirmed;
      const published = new Set(history.entries.filter((e) => e.kind === 'publish').map((e) => e.id!));
      const todo = [...published].filter((id) => !confirmed.has(id)).sort((x, y) => x - y);
      if (todo.length === 0) return resent;
      if (Date.now() > end)
        throw new LabError(`${todo.length} ids still unconfirmed after resending for ${timeoutMs / 1000} s`);
      await send(todo);
    }
  } finally {
    await closeChannel(channel);
    await closeConnection(connection);
  }
}

/** how a consumer records a delivery before it acks it */
export type RecordConsumed = (history: History, id: number, node: string, redelivered: boolean) => void;

/** a delivery recorded as consumed (then acked) */
export const recordConsumed: RecordConsumed = (history, id, node, redelivered) =>
  history.consume(id, node, redelivered);

/** consume `queue` through `urls` into the history (ack each) until it is empty and quiet for `quietMs`; bounded by `timeoutMs` */
export async function drainRecorded(
  history: History,
  urls: string[],
  nodeOf: (url: string) => string,
  queue: string,
  depth: () => Promise<number>,
  opts: { quietMs: number; timeoutMs: number; record?: RecordConsumed },
): Promise<number> {
  let last = Date.now();
  let n = 0;
  const record = opts.record ?? recordConsumed;
  const consumer = await ReconnectingConsumer.start({
    urls,
    maxWaitMs: 30_000,
    queue,
    prefetch: 100,
    handler: (m, url) => {
      record(history, Number(m.body), nodeOf(url), m.redelivered);
      n++;
      m.ack();
      last = Date.now();
    },
  });
  try {
    const end = Date.now() + opts.timeoutMs;
    for (;;) {
      // bounded: a depth the broker does not answer (a queue whose leader is frozen) is a try of this loop, not a hang
      const ready = await Promise.race([
        within(depth(), 10_000, `the depth of ${queue}`).catch(() => -1),
        consumer.failure,
      ]);
      if (ready === 0 && Date.now() - last > opts.quietMs) return n;
      if (Date.now() > end)
        throw new LabError(`${queue} still holds ${ready} messages after draining for ${opts.timeoutMs / 1000} s`);
      await sleep(300);
    }
  } finally {
    await consumer.close();
  }
}
