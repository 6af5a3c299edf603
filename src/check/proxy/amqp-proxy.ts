/**
 * The AMQP proxy between a checked consumer and the broker: it forwards every frame unchanged and
 * keeps what the broker and the consumer told each other — who consumes, each delivery (its message
 * id, by channel and delivery tag), each ack / nack / reject that reached the broker, the broker's
 * basic.cancel and channel closes. Two seams let a scenario act at an exact point of the protocol:
 * `onDeliver` runs before a delivery reaches the consumer (to freeze or kill it there), and
 * `holdSettleOf` holds the consumer's bytes from the ack of a chosen delivery on (the broker never
 * sees that ack).
 */
import { FrameSplitter, readMessageId, readMethod, type Frame } from './amqp-frames.js';
import { Relay, type RelayConn } from './relay.js';

export interface DeliveryInfo {
  conn: number;
  channel: number;
  tag: number;
  messageId: string | undefined;
  redelivered: boolean;
  /** 1 for the first delivery the proxy saw, across every connection */
  index: number;
}

type Settle = 'ack' | 'nack' | 'reject';

interface AmqpSeams {
  /** before the delivery reaches the consumer: a scenario freezes, stalls or kills it here (synchronously) */
  onDeliver?(d: DeliveryInfo): void;
  /** true: the consumer's settle of `d` and every byte after it are held (then dropped with the connection) */
  holdSettleOf?(d: DeliveryInfo, how: Settle): boolean;
  /** a settle the broker was sent (not a held one) */
  onSettled?(d: DeliveryInfo, how: Settle, requeue: boolean): void;
  /** a settle that was held */
  onHeld?(d: DeliveryInfo, how: Settle): void;
}

interface ConnState {
  client: FrameSplitter;
  server: FrameSplitter;
  /** channel → delivery tag → delivery not yet settled */
  unsettled: Map<number, Map<number, DeliveryInfo>>;
  /** consumer tags the broker confirmed, by channel */
  consumers: Map<number, Set<string>>;
  /** a deliver method frame waiting for its content header (channel → frame, delivery) */
  pending: Map<number, { frame: Frame; deliver: Omit<DeliveryInfo, 'messageId' | 'index'> }>;
}

export class AmqpProxy {
  relay!: Relay;
  seams: AmqpSeams = {};
  private state = new Map<number, ConnState>();
  deliveries = 0;
  acks = 0;
  /** Date.now() of the last ack the broker was sent */
  lastAckAt = 0;
  /** deliveries per message id */
  readonly deliveredTimes = new Map<string, number>();
  /** what the broker did to its consumers: basic.cancel, channel.close (code text) */
  readonly serverActions: { at: number; action: string }[] = [];
  /** consume-ok the consumer got (ever), to tell a consumer that never consumed */
  consumeOks = 0;

  static async start(target: { host: string; port: number }): Promise<AmqpProxy> {
    const p = new AmqpProxy();
    p.relay = await Relay.listen(target, {
      onOpen: (c) =>
        p.state.set(c.id, {
          client: new FrameSplitter(true),
          server: new FrameSplitter(false),
          unsettled: new Map(),
          consumers: new Map(),
          pending: new Map(),
        }),
      onClose: (c) => p.state.delete(c.id),
      onClientData: (c, chunk) => p.fromClient(c, chunk),
      onServerData: (c, chunk) => p.fromServer(c, chunk),
    });
    return p;
  }

  get port(): number {
    return this.relay.port;
  }

  /** consumers the broker has now (consume-ok, not cancelled, on open channels and connections) */
  get consuming(): number {
    let n = 0;
    for (const s of this.state.values()) for (const tags of s.consumers.values()) n += tags.size;
    return n;
  }

  /** deliveries the broker sent and has not seen settled, on open channels */
  unsettled(): DeliveryInfo[] {
    const out: DeliveryInfo[] = [];
    for (const s of this.state.values()) for (const tags of s.unsettled.values()) out.push(...tags.values());
    return out;
  }

  private fromServer(c: RelayConn, chunk: Buffer): void {
    const s = this.state.get(c.id);
    if (!s) return c.toClient.write(chunk);
    for (const f of s.server.push(chunk).frames) {
      const pending = s.pending.get(f.channel);
      if (pending) {
        s.pending.delete(f.channel);
        const d: DeliveryInfo = { ...pending.deliver, messageId: readMessageId(f), index: ++this.deliveries };
        channelOf(s.unsettled, f.channel).set(d.tag, d);
        if (d.messageId !== undefined)
          this.deliveredTimes.set(d.messageId, (this.deliveredTimes.get(d.messageId) ?? 0) + 1);
        this.seams.onDeliver?.(d);
        c.toClient.write(pending.frame.raw);
        c.toClient.write(f.raw);
        continue;
      }
      const m = readMethod(f);
      if (m?.kind === 'deliver') {
        s.pending.set(f.channel, {
          frame: f,
          deliver: { conn: c.id, channel: f.channel, tag: m.deliveryTag, redelivered: m.redelivered },
        });
        continue;
      }
      if (m?.kind === 'consume-ok') {
        this.consumeOks += 1;
        consumersOf(s.consumers, f.channel).add(m.consumerTag);
      } else if (m?.kind === 'cancel') {
        s.consumers.get(f.channel)?.delete(m.consumerTag);
        this.serverActions.push({ at: Date.now(), action: 'basic.cancel' });
      } else if (m?.kind === 'channel-close') {
        // the broker returns the channel's unsettled deliveries and ends its consumers
        s.unsettled.delete(f.channel);
        s.consumers.delete(f.channel);
        this.serverActions.push({ at: Date.now(), action: `channel.close ${m.code} ${m.text}` });
      } else if (m?.kind === 'connection-close') {
        this.serverActions.push({ at: Date.now(), action: `connection.close ${m.code} ${m.text}` });
      }
      c.toClient.write(f.raw);
    }
  }

  private fromClient(c: RelayConn, chunk: Buffer): void {
    const s = this.state.get(c.id);
    if (!s) return c.toServer.write(chunk);
    const { prefix, frames } = s.client.push(chunk);
    c.toServer.write(prefix);
    for (const f of frames) {
      if (!c.toServer.holding) this.settle(c, s, f);
      c.toServer.write(f.raw);
    }
  }

  /** a frame from the consumer about to go to the broker: settles, cancels, closes */
  private settle(c: RelayConn, s: ConnState, f: Frame): void {
    const m = readMethod(f);
    if (!m) return;
    if (m.kind === 'channel-close' || m.kind === 'channel-close-ok') {
      s.unsettled.delete(f.channel);
      s.consumers.delete(f.channel);
      return;
    }
    if (m.kind !== 'ack' && m.kind !== 'nack' && m.kind !== 'reject') return;
    const tags = channelOf(s.unsettled, f.channel);
    const multiple = m.kind !== 'reject' && m.multiple;
    const settled = [...tags.values()].filter((d) =>
      multiple ? m.deliveryTag === 0 || d.tag <= m.deliveryTag : d.tag === m.deliveryTag,
    );
    if (settled.some((d) => this.seams.holdSettleOf?.(d, m.kind))) {
      c.toServer.hold();
      for (const d of settled) this.seams.onHeld?.(d, m.kind);
      return;
    }
    const requeue = m.kind === 'ack' ? false : m.requeue;
    for (const d of settled) {
      tags.delete(d.tag);
      if (m.kind === 'ack') [this.acks, this.lastAckAt] = [this.acks + 1, Date.now()];
      this.seams.onSettled?.(d, m.kind, requeue);
    }
  }

  /** end every connection of the consumer (it was killed), dropping what is held */
  dropAll(): void {
    this.relay.dropAll();
  }

  close(): Promise<void> {
    return this.relay.close();
  }
}

function channelOf<V>(m: Map<number, Map<number, V>>, channel: number): Map<number, V> {
  let v = m.get(channel);
  if (!v) m.set(channel, (v = new Map<number, V>()));
  return v;
}

function consumersOf(m: Map<number, Set<string>>, channel: number): Set<string> {
  let v = m.get(channel);
  if (!v) m.set(channel, (v = new Set()));
  return v;
}
