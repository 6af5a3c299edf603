/**
 * The broker-restart lab's two clients, both on the engine's reconnect helper (src/broker/reconnect.ts):
 * a producer that publishes with confirms at a steady pace and, after a loss, reconnects and resends
 * every id the broker had not confirmed; a consumer (prefetch PREFETCH) that commits each delivery
 * (idempotency key + effect in one transaction) and acks it, or holds the ack while told to.
 */
import {
  type Db,
  type Outage,
  ReconnectingConsumer,
  ReconnectingPublisher,
  type ReconnectOptions,
} from '../../src/kit/index.js';
import {
  AFTER_RECONNECT,
  FIRST_BATCH,
  MAX_IDS,
  PREFETCH,
  PUBLISH_GAP_MS,
  messageId,
  type BrokerRestartNames,
} from './names.js';

/** the steps of the experiment a broken variant may replace (variants.ts, TEST ONLY) */
export interface RestartSteps {
  /** the queue the lab publishes to and whether its messages are persistent: the quorum queue, persistent */
  target(name: BrokerRestartNames): { queue: string; persistent: boolean };
  /** after a lost connection: `send` sends every id the broker had not confirmed again */
  resend(send: () => Promise<void>): Promise<void>;
  /** in the effect's transaction: `write` inserts the idempotency key (no row back: a redelivery, skipped) */
  writeKey(write: () => Promise<readonly unknown[]>): Promise<readonly unknown[]>;
  /** stop the node and start it again under both clients: the outage (with the ids confirmed at the stop), or null */
  restart(confirmed: () => string[]): Promise<Outage<string[]> | null>;
}

export interface ProducerRecord {
  /** ids published, in order */
  ids: string[];
  /** ids the broker had not confirmed when the connection was lost (resent after the reconnect) */
  lostAtRestart: string[];
  reconnects: number;
}

export interface Hooks {
  /** the experiment's steps (lab.ts) */
  steps: RestartSteps;
  emit(source: string, fields: Record<string, unknown>): void;
  sleep(ms: number): Promise<void>;
}

/** publish ids FIRST_BATCH+1, … until `stop()` says so (at most MAX_IDS in all); reconnect and resend after a loss */
export async function produce(
  p: ReconnectingPublisher,
  name: BrokerRestartNames,
  h: Hooks,
  stop: (published: number) => boolean,
  record: ProducerRecord,
): Promise<void> {
  const { queue, persistent } = h.steps.target(name);
  let afterReconnect = -1;
  for (let i = FIRST_BATCH + 1; i <= MAX_IDS && !stop(record.ids.length); i++) {
    if (record.reconnects > 0 && ++afterReconnect >= AFTER_RECONNECT) break;
    const id = messageId(i);
    record.ids.push(id);
    try {
      await p.publish('', queue, JSON.stringify({ id }), { messageId: id, persistent });
      h.emit('producer', { messageId: id, status: 'confirmed' });
    } catch (err) {
      h.emit('producer', { messageId: id, error: (err as Error).message, status: 'unconfirmed' });
      if (p.url === null) {
        await p.reconnect(); // bounded: the helper's maxWaitMs
        record.reconnects++;
        h.emit('producer', { status: 'reconnected' });
      }
      const again = p.unconfirmed();
      record.lostAtRestart.push(...again.filter((u) => !record.lostAtRestart.includes(u)));
      await h.steps.resend(async () => {
        h.emit('producer', { resend: again.join(','), status: 'resending' });
        await p.resendUnconfirmed();
      });
    }
    await h.sleep(PUBLISH_GAP_MS);
  }
}

export interface ConsumerRecord {
  deliveries: { id: string; redelivered: boolean; at: number }[];
  /** committed and not acked while `holdAcks` was on */
  held: string[];
  /** ids acked (after their commit) */
  acked: Set<string>;
}

/** the consumer: one transaction per delivery, then ack (or hold the ack while holdAcks() says so) */
export async function consume(
  opts: ReconnectOptions,
  db: Db,
  name: BrokerRestartNames,
  h: Hooks,
  holdAcks: () => boolean,
  record: ConsumerRecord,
) {
  return ReconnectingConsumer.start({
    ...opts,
    queue: h.steps.target(name).queue,
    prefetch: PREFETCH,
    handler: async (m) => {
      const id = m.messageId ?? '';
      record.deliveries.push({ id, redelivered: m.redelivered, at: Date.now() });
      const fresh = await db.begin(async (tx) => {
        const key = await h.steps.writeKey(
          () => tx`INSERT INTO ${tx(name.processed)} (message_id) VALUES (${id}) ON CONFLICT DO NOTHING RETURNING 1`,
        );
        if (key.length) await tx`INSERT INTO ${tx(name.effects)} (message_id) VALUES (${id})`;
        return key.length > 0;
      });
      h.emit('consumer', {
        messageId: id,
        redelivered: m.redelivered,
        status: fresh ? 'committed' : 'duplicate_skipped',
      });
      if (holdAcks()) return void record.held.push(id);
      m.ack();
      record.acked.add(id);
    },
  });
}
