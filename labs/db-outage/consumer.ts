/**
 * The db-outage consumer (in the lab's process, its own AMQP connection and its own database pool,
 * so the outage reaches it as it would reach a service): prefetch 1, one transaction per delivery
 * (idempotency key + effect), ack only after the commit. A failed transaction is retried with
 * backoff while the delivery is held; when the hold budget is spent the delivery is given back
 * with nack(requeue=true), and the broker redelivers it.
 */
import {
  Broker,
  closeChannel,
  type Consumer,
  type Db,
  type Outage,
  type Stopped,
  backoffMs,
  text,
} from '../../src/kit/index.js';
import { BACKOFF, type DbOutageNames } from './names.js';

/** the steps of the experiment a broken variant may replace (variants.ts, TEST ONLY) */
export interface OutageSteps {
  /** stop PostgreSQL, run `whileDown`, start it again: the outage, or null when it was not stopped */
  outage(whileDown: (stopped: Stopped) => Promise<void>): Promise<Outage<void> | null>;
  /**
   * a delivery's commit and its settle: `commit` (retried within the hold budget) says whether it
   * committed; then ack, or give the delivery back (nack with requeue)
   */
  commitThenSettle(commit: () => Promise<boolean>, ack: () => void, giveBack: () => void): Promise<void>;
  /** the delivery's processed key and effect, committed in one transaction after `hold` */
  transact(db: Db, name: DbOutageNames, id: string, delivery: number, hold: () => Promise<void> | null): Promise<void>;
}

interface Attempt {
  id: string;
  /** the nth delivery of this id to the consumer (1-based) */
  delivery: number;
  at: number;
  /** order among attempts and acks */
  seq: number;
  ok: boolean;
  /** the database client's error code (CONNECTION_CLOSED, ECONNREFUSED, 57P01 …) */
  error?: string;
}

export interface ConsumerRecord {
  deliveries: { id: string; delivery: number; redelivered: boolean; at: number }[];
  attempts: Attempt[];
  acks: { id: string; at: number; seq: number }[];
  givenBack: { id: string; at: number }[];
}

interface ConsumerSetup {
  amqpUrl: string;
  db: Db;
  name: DbOutageNames;
  holdBudgetMs: number;
  /** a promise to wait on inside the open transaction (before COMMIT), or null */
  holdFor(id: string, delivery: number): Promise<void> | null;
  /** the consumer's steps (lab.ts) */
  steps: OutageSteps;
  emit(fields: Record<string, unknown>): void;
  sleep(ms: number): Promise<void>;
}

interface RunningConsumer {
  record: ConsumerRecord;
  /** ids whose effect committed */
  committed: Set<string>;
  failure: Promise<never>;
  stop(): Promise<void>;
}

const codeOf = (err: unknown) => text((err as { code?: unknown })?.code ?? (err as Error)?.message ?? err);

export async function startConsumer(s: ConsumerSetup): Promise<RunningConsumer> {
  const broker = await Broker.connect(s.amqpUrl);
  const ch = await broker.newChannel();
  const record: ConsumerRecord = { deliveries: [], attempts: [], acks: [], givenBack: [] };
  const committed = new Set<string>();
  const seen = new Map<string, number>();
  let seq = 0;
  const { db, name } = s;

  const consumer: Consumer & { failure: Promise<never> } = await broker.consume(
    name.queue,
    async (m) => {
      const id = m.messageId ?? '';
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      record.deliveries.push({ id, delivery: n, redelivered: m.redelivered, at: Date.now() });
      s.emit({ messageId: id, delivery: n, redelivered: m.redelivered, status: 'received' });
      const ack = () => {
        m.ack();
        record.acks.push({ id, at: Date.now(), seq: ++seq });
        s.emit({ messageId: id, status: 'acked' });
      };
      const giveBack = () => {
        m.nack(true); // not acked: the broker redelivers it
        s.emit({ messageId: id, delivery: n, status: 'nack_requeue' });
        record.givenBack.push({ id, at: Date.now() });
      };
      /** the transaction, tried again with backoff while the hold budget lasts: did it commit */
      const commit = async (): Promise<boolean> => {
        // the hold budget runs from the first failed commit (as the lab's verdict reads it, verdicts.ts):
        // the time the first transaction stays open (a --step pause holds it) is not spent retrying
        let start: number | null = null;
        for (let attempt = 1; ; attempt++) {
          try {
            await s.steps.transact(db, name, id, n, () => (attempt === 1 ? s.holdFor(id, n) : null));
            record.attempts.push({ id, delivery: n, at: Date.now(), seq: ++seq, ok: true });
            committed.add(id);
            s.emit({ messageId: id, delivery: n, attempt, status: 'committed' });
            return true;
          } catch (err) {
            const error = codeOf(err);
            record.attempts.push({ id, delivery: n, at: Date.now(), seq: ++seq, ok: false, error });
            s.emit({ messageId: id, delivery: n, attempt, error, status: 'tx_failed' });
            const wait = backoffMs(BACKOFF, attempt - 1);
            start ??= Date.now();
            if (Date.now() - start + wait > s.holdBudgetMs) return false;
            await s.sleep(wait);
          }
        }
      };
      await s.steps.commitThenSettle(commit, ack, giveBack);
    },
    { prefetch: 1, channel: ch },
  );
  return {
    record,
    committed,
    failure: consumer.failure,
    async stop() {
      await consumer.cancel();
      await closeChannel(ch); // settles its acks before the connection goes
      await broker.close();
    },
  };
}

/**
 * one transaction: the processed key and the effect, COMMIT at the end. Received, not committed:
 * PostgreSQL may stop during `hold`, and this transaction then fails. (Held before BEGIN, not inside
 * it: postgres.js 3.4 crashes the process writing COMMIT to a connection the server already closed.)
 */
export async function transact(
  db: Db,
  name: DbOutageNames,
  id: string,
  delivery: number,
  hold: () => Promise<void> | null,
): Promise<void> {
  await hold();
  await db.begin(async (tx) => {
    const fresh =
      await tx`INSERT INTO ${tx(name.processed)} (message_id) VALUES (${id}) ON CONFLICT DO NOTHING RETURNING message_id`;
    if (fresh.length) await tx`INSERT INTO ${tx(name.effects)} (message_id, delivery) VALUES (${id}, ${delivery})`;
  });
}
