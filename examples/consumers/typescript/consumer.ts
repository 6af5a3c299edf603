/**
 * A consumer that passes `mqlab check` (docs/check.md), in TypeScript with amqplib and postgres.
 * Per message: one transaction — a dedupe row keyed by the message id, then the business effect —
 * committed, and only then the ack. A body it cannot parse is parked: reject(requeue=false), which the
 * work queue dead-letters into MQLAB_DLQ. It exits when the broker cancels it or closes its channel
 * or connection, and on a database error (without acking): whoever runs it (mqlab, systemd,
 * Kubernetes) starts it again, and the broker redelivers what it had not acked.
 *
 *   mqlab check --consumer "node dist/examples/consumers/typescript/consumer.js" \
 *     --effects "SELECT message_id FROM check_example_effects"
 *
 * The broken variants beside it (broken-*.ts) run this same code with one step changed.
 */
import amqp, { type ConsumeMessage } from 'amqplib';
import postgres from 'postgres';

export interface Steps {
  /** when the ack goes: after the commit (right), or before it */
  ack: 'after-commit' | 'before-commit';
  /** claim the message id in the dedupe table first, in the effect's transaction */
  dedupe: boolean;
  /** a body that is not JSON: park it, requeue it, or write a row for it under a placeholder id and park it */
  poison: 'park' | 'requeue' | 'record-and-park';
  /** the broker cancels the consumer or closes its channel/connection: exit, or carry on as if nothing happened */
  cancelled: 'exit' | 'ignore';
  /** the database fails mid-message: exit without acking, or log it and carry on without ack or nack */
  dbError: 'exit' | 'swallow';
}

export const CORRECT: Steps = { ack: 'after-commit', dedupe: true, poison: 'park', cancelled: 'exit', dbError: 'exit' };

const need = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (mqlab check sets it)`);
  return v;
};

/** the effect and dedupe tables, namespaced when several checks share a database */
export function tables(env: NodeJS.ProcessEnv = process.env) {
  const ns = env.MQLAB_NAMESPACE ? `${env.MQLAB_NAMESPACE}_` : '';
  return { effects: `${ns}check_example_effects`, processed: `${ns}check_example_processed` };
}

export async function runConsumer(steps: Steps = CORRECT): Promise<void> {
  const queue = need('MQLAB_QUEUE');
  const t = tables();
  const sql = postgres(need('MQLAB_PG_URL'), { max: 1, onnotice: () => {}, connect_timeout: 5 });
  await sql.unsafe(
    `CREATE TABLE IF NOT EXISTS ${t.effects} (message_id text NOT NULL, at timestamptz NOT NULL DEFAULT now());
     CREATE TABLE IF NOT EXISTS ${t.processed} (message_id text PRIMARY KEY)`,
  );
  const connection = await amqp.connect(need('MQLAB_AMQP_URL'));
  const channel = await connection.createChannel();
  await channel.prefetch(1);

  // one message at a time, in order: a cancel that arrives while a message is in hand waits for it
  let inHand: Promise<void> = Promise.resolve();
  let leaving = false;
  const leave = (code: number, why: string) => {
    if (leaving) return;
    leaving = true;
    log(`status=exiting code=${code} why="${why}"`);
    void inHand.finally(() => process.exit(code));
  };
  // the broker ended the consumer, its channel or its connection: leave, and be started again
  const lost = (why: string) => (steps.cancelled === 'ignore' ? log(`status=ignored why="${why}"`) : leave(0, why));
  connection.on('error', () => {});
  channel.on('error', () => {});
  connection.on('close', () => lost('connection closed'));
  channel.on('close', () => lost('channel closed'));
  process.on('SIGTERM', () => leave(0, 'SIGTERM'));
  if (steps.cancelled === 'ignore') setInterval(() => {}, 1 << 30); // alive, whatever happens

  const handle = async (m: ConsumeMessage) => {
    const id = String(m.properties.messageId);
    try {
      JSON.parse(m.content.toString('utf8'));
    } catch {
      if (steps.poison === 'requeue') return channel.nack(m, false, true);
      if (steps.poison === 'record-and-park') await sql`INSERT INTO ${sql(t.effects)} (message_id) VALUES ('unknown')`;
      log(`status=parked messageId=${id}`);
      return channel.reject(m, false);
    }
    if (steps.ack === 'before-commit') channel.ack(m);
    try {
      const applied = await sql.begin(async (tx) => {
        if (steps.dedupe) {
          const claimed =
            await tx`INSERT INTO ${tx(t.processed)} (message_id) VALUES (${id}) ON CONFLICT DO NOTHING RETURNING 1`;
          if (claimed.length === 0) return false;
        }
        await tx`INSERT INTO ${tx(t.effects)} (message_id) VALUES (${id})`;
        return true;
      });
      log(`status=${applied ? 'business_committed' : 'duplicate_skipped'} messageId=${id}`);
    } catch (err) {
      log(`status=db_error messageId=${id} error="${(err as Error).message}"`);
      if (steps.dbError === 'exit') return leave(1, 'database error');
      return; // swallowed: neither ack nor nack
    }
    if (steps.ack === 'after-commit') channel.ack(m);
  };
  await channel.consume(
    queue,
    (m) => {
      if (m === null) return lost('the broker cancelled the consumer');
      inHand = inHand.then(() => handle(m)).catch((err: Error) => lost(err.message)); // e.g. an ack on a closed channel
    },
    { noAck: false },
  );
  log(`status=consuming queue=${queue}`);
}

function log(line: string): void {
  process.stdout.write(`[consumer] ${line}\n`);
}

// run as a program (not when a broken variant imports it)
if (import.meta.url === `file://${process.argv[1]}`) await runConsumer();
