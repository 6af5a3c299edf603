import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectLabPasses, mqlab, runLabJson, useNamespace, useServices } from '../../test/helpers.js';

/** the facts these tests read */
interface RetryDlqFacts {
  poisonDeathsByAttempt: unknown[][];
  poisonRetryGapsMs: number[];
}

const n = useNamespace(import.meta.url);

const SUMMARY =
  'retry-dlq: confirmed=3 received=5 businessRows=2 processedRows=2 poisonAttempts=[1, 2, 3] poisonMovedToDlq=1 dlqMessages=1';
// the source demo's assert.out.txt (docs/labs/retry-dlq.md), character for character
const DEMO_ASSERT = [
  'PASS confirmed: 3',
  'PASS business_rows: 2',
  'PASS poisonAttempts: 1,2,3',
  'PASS poisonMovedToDlq: 1',
  'PASS dlqMessages: 1',
  'PASS workQueueDepthAfter: 0',
  'PASS retryQueueDepthAfter: 0',
  'PASS consumer.exitCode: 0',
  'RESULT: all assertions passed',
];
const P = '01JMQ00000000000000000000P';
const QUEUES = ['orders.work', 'orders.retry', 'orders.dlq'];

describe('retry-dlq lab against the real broker and database', () => {
  const s = useServices({
    // the --namespace run's own queues and tables
    teardown: async ({ broker, db }) => {
      const ch = await broker.newChannel();
      for (const q of QUEUES) await ch.deleteQueue(`i_retry_dlq.${q}`).catch(() => {});
      await ch.close().catch(() => {});
      await db.unsafe('DROP TABLE IF EXISTS i_retry_dlq_retry_dlq_orders, i_retry_dlq_retry_dlq_processed_messages');
    },
  });

  /** what the broker and the database hold after a run */
  async function assertEndState() {
    expect(await s.broker.depth(n.q('orders.work'))).toBe(0);
    expect(await s.broker.depth(n.q('orders.retry'))).toBe(0);
    expect(await s.broker.depth(n.q('orders.dlq'))).toBe(1);
    const orders = await s.db<
      { order_id: string; message_id: string; quantity: number }[]
    >`SELECT order_id, message_id, quantity FROM ${s.db(n.t('retry_dlq_orders'))} ORDER BY order_id`;
    expect(orders.map((r) => [r.order_id, r.message_id, r.quantity])).toEqual([
      ['order-1001', '01JMQ000000000000000000001', 2],
      ['order-1002', '01JMQ000000000000000000002', 1],
    ]);
    const processed = await s.db<
      { message_id: string }[]
    >`SELECT message_id FROM ${s.db(n.t('retry_dlq_processed_messages'))} ORDER BY message_id`;
    expect(processed.map((r) => r.message_id)).toEqual(['01JMQ000000000000000000001', '01JMQ000000000000000000002']);
    // the one message in the DLQ is the poison order, published there by the consumer at attempt 3
    const dead = await s.broker.get(n.q('orders.dlq'));
    expect(dead).not.toBeNull();
    try {
      expect(dead!.messageId).toBe(P);
      expect(dead!.raw.properties.correlationId).toBe('order-poison');
      expect(JSON.parse(dead!.body)).toEqual({ orderId: 'order-poison', quantity: 0 });
      expect(dead!.headers).toMatchObject({
        attempts: 3,
        failedQueue: n.q('orders.work'),
        error: 'check_violation',
        eventType: 'order.created',
        schemaVersion: 1,
      });
      // a client publish, not a broker dead letter: no x-death of its own
      expect(dead!.headers['x-death']).toBeUndefined();
    } finally {
      dead!.nack(true); // leave it where the lab left it
    }
  }

  it('passes twice in a row, prints the summary and PASS lines, and leaves exactly what the broker and database should hold', async () => {
    await expectLabPasses(['retry-dlq'], {
      line: [SUMMARY, ...DEMO_ASSERT],
      check: () => assertEndState(), // the second run purged the first run's DLQ sample: still exactly one
    });
  });

  it("x-death[0] is the retry queue's expiry, the (orders.work, rejected) entry holds the count; whatever an earlier run left", async () => {
    expect.hasAssertions(); // some assertions sit in loops over what the run observed
    // leftovers of an interrupted run: a stale message in each queue, stale rows in both tables
    for (const q of QUEUES.map(n.q)) await s.broker.sendConfirmed(q, 'stale', { messageId: `stale-${q}` });
    await s.db`INSERT INTO ${s.db(n.t('retry_dlq_processed_messages'))} (message_id) VALUES ('01JMQ000000000000000000001') ON CONFLICT DO NOTHING`;
    await s.db`INSERT INTO ${s.db(n.t('retry_dlq_orders'))} (order_id, message_id, quantity) VALUES ('order-poison', ${P}, 5) ON CONFLICT DO NOTHING`;

    const { code, report } = await runLabJson<RetryDlqFacts>('retry-dlq');
    expect(code, JSON.stringify(report.checks)).toBe(0);
    expect(report.lines[0]).toBe(SUMMARY);
    await assertEndState();

    const deaths = report.facts.poisonDeathsByAttempt;
    expect(deaths[0]).toEqual([]);
    for (const attempt of [2, 3]) {
      const history = deaths[attempt - 1] ?? [];
      expect(history[0]).toEqual({ queue: n.q('orders.retry'), reason: 'expired', count: attempt - 1 });
      expect(history).toContainEqual({ queue: n.q('orders.work'), reason: 'rejected', count: attempt - 1 });
    }
    // every retry waited out the retry queue's TTL
    expect(report.facts.poisonRetryGapsMs).toHaveLength(2);
    for (const gap of report.facts.poisonRetryGapsMs) expect(gap).toBeGreaterThanOrEqual(1000);
    // the consumer reported each outcome; the producer had every publish confirmed
    const statuses = report.events.filter((e) => e.source === 'consumer').map((e) => e.status);
    expect(statuses.filter((st) => st === 'business_committed')).toHaveLength(2);
    expect(statuses.filter((st) => st === 'retry')).toHaveLength(2);
    expect(statuses.at(-1)).toBe('done');
  });

  it('declares the quorum queues and the dead-letter routing through the default exchange', async () => {
    expect(await s.mgmt.queue(n.q('orders.work'))).toMatchObject({
      type: 'quorum',
      arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': n.q('orders.retry') },
    });
    expect(await s.mgmt.queue(n.q('orders.retry'))).toMatchObject({
      type: 'quorum',
      arguments: {
        'x-message-ttl': 1000,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': n.q('orders.work'),
      },
    });
    const dlq = await s.mgmt.queue(n.q('orders.dlq'));
    expect(dlq?.type).toBe('quorum');
    expect(dlq?.arguments['x-dead-letter-exchange']).toBeUndefined(); // the end of the line
  });

  it('--namespace reaches the child processes; --out keeps the producer and consumer output', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-retry-dlq-'));
    const r = await mqlab(['retry-dlq', '--namespace', 'i_retry_dlq', '--out', out]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await s.broker.depth('i_retry_dlq.orders.dlq')).toBe(1);
    const [count] = await s.db`SELECT count(*)::int AS n FROM i_retry_dlq_retry_dlq_orders`;
    expect(count?.n).toBe(2);
    const producer = fs.readFileSync(path.join(out, 'producer.out.txt'), 'utf8').trim().split('\n');
    expect(producer).toHaveLength(4);
    expect(producer[0]).toMatch(
      /^\[producer\] timestamp=\S+ level=INFO service=order-service product=rabbitmq lab=retry-dlq messageId=01JMQ000000000000000000001 eventType=order.created schemaVersion=1 aggregateId=order-1001 traceId=0{31}1 correlationId=order-1001 destination=i_retry_dlq.orders.work routingKey=i_retry_dlq.orders.work durationMs=\d+ status=confirmed$/,
    );
    expect(producer[3]).toMatch(/ destination=i_retry_dlq.orders.work confirmed=3 status=done$/);
    const consumer = fs.readFileSync(path.join(out, 'consumer.out.txt'), 'utf8').trim().split('\n');
    expect(consumer.at(-2)).toMatch(
      / messageId=01JMQ00000000000000000000P .* attempt=3 error=check_violation status=poison_to_dlq$/,
    );
    expect(consumer.at(-1)).toMatch(/ queue=i_retry_dlq.orders.work received=5 status=done$/);
    fs.rmSync(out, { recursive: true, force: true });
  });
});
