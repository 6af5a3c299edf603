import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectLabPasses, mqlab, runLabJson, startMqlab, useNamespace, useServices } from '../../test/helpers.js';

const n = useNamespace(import.meta.url);
/** the crash queue's name as it appears inside a regular expression */
const CRASH_Q = n.q('orders.crash').replace(/[.]/g, '\\.');

const SUMMARY =
  'consumer-crash: crashExitCode=137 committedNotAcked=1 readyAfterCrash=3 deliveries=4 redelivered=1 duplicateSkipped=1 businessRows=3 processedRows=3';
// the PASS lines and RESULT of the source demo's assert.out.txt (docs/labs/consumer-crash.md)
const DEMO_ASSERT = [
  'PASS crashExitCode: 137',
  'PASS crashAfterBusinessCommit: 1',
  'PASS receivedTotal: 4',
  'PASS redeliveredCount: 1',
  'PASS duplicatesObserved: 1',
  'PASS uniqueMessageIds: 3',
  'PASS business_rows: 3',
  'PASS queueDepthAfter: 0',
  'PASS consumer-run2.exitCode: 0',
  'RESULT: all assertions passed',
];
const ID = (n: number) => `01JMQ00000000000000000000${n}`;

describe('consumer-crash lab against the real broker and database', () => {
  const s = useServices();
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-consumer-crash-'));
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  /** what the broker shows right now: ready messages and consumers (passive declare, not sampled stats) */
  async function queueState(queue: string) {
    const ch = await s.broker.newChannel();
    try {
      const q = await ch.checkQueue(queue);
      return { ready: q.messageCount, consumers: q.consumerCount };
    } finally {
      await ch.close();
    }
  }

  async function rows(prefix = `${n.namespace}_`) {
    const orders = await s.db<
      { order_id: string; message_id: string }[]
    >`SELECT order_id, message_id FROM ${s.db(`${prefix}orders`)} WHERE lab = 'consumer-crash' ORDER BY id`;
    const processed = await s.db<
      { message_id: string }[]
    >`SELECT message_id FROM ${s.db(`${prefix}processed_messages`)} WHERE lab = 'consumer-crash' ORDER BY message_id`;
    return {
      orders: orders.map((r) => `${r.order_id}/${r.message_id}`),
      processed: processed.map((r) => r.message_id),
    };
  }

  const read = (name: string) => fs.readFileSync(path.join(out, name), 'utf8').trimEnd().split('\n');

  it("passes twice in a row: the demo's PASS lines, three rows, an empty queue, every process's output kept", async () => {
    await expectLabPasses(['consumer-crash', '--out', out], {
      line: SUMMARY,
      check: async (r) => {
        expect(r.stdout.trimEnd().split('\n')).toEqual([SUMMARY, ...DEMO_ASSERT]);

        // the database: one order per message although message 1 was delivered twice
        expect(await rows()).toEqual({
          orders: [`order-1001/${ID(1)}`, `order-1002/${ID(2)}`, `order-1003/${ID(3)}`],
          processed: [ID(1), ID(2), ID(3)],
        });
        // the broker: nothing left, and both consumer processes are gone
        expect(await queueState(n.q('orders.crash'))).toEqual({ ready: 0, consumers: 0 });

        expect(read('assert.out.txt')).toEqual(DEMO_ASSERT);
        const producer = read('producer.out.txt');
        expect(
          producer.filter((l) =>
            new RegExp(
              `^\\[producer\\] .* destination=${CRASH_Q} routingKey=${CRASH_Q} durationMs=\\d+ status=confirmed$`,
            ).test(l),
          ),
        ).toHaveLength(3);
        expect(producer[3]).toMatch(
          new RegExp(
            `^\\[producer\\] timestamp=\\S+ level=INFO service=order-service product=rabbitmq lab=consumer-crash destination=${CRASH_Q} confirmed=3 status=done$`,
          ),
        );

        const run1 = read('consumer-run1.out.txt');
        expect(run1[0]).toMatch(
          new RegExp(
            `^\\[consumer\\] timestamp=\\S+ level=INFO service=order-service product=rabbitmq lab=consumer-crash messageId=${ID(1)} eventType=order\\.created schemaVersion=1 aggregateId=order-1001 traceId=0{31}1 correlationId=order-1001 destination=${CRASH_Q} consumer=consumer-1 attempt=1 redelivered=false status=received$`,
          ),
        );
        expect(run1.map(status)).toEqual([
          'received',
          'waiting',
          'released',
          'business_committed',
          'waiting',
          'released',
          'crash_injected',
        ]);
        expect(run1[4]).toMatch(
          new RegExp(
            `^\\[replay-gate\\] timestamp=\\S+ checkpoint=before-ack messageId=${ID(1)} token=[0-9a-f]{12}-1-before-ack-${ID(1)}-2 status=waiting$`,
          ),
        );

        const run2 = read('consumer-run2.out.txt');
        const consumerLines = run2.filter((l) => l.startsWith('[consumer]'));
        expect(
          consumerLines.map((l) => `${field(l, 'messageId') ?? '-'} ${field(l, 'redelivered') ?? '-'} ${status(l)}`),
        ).toEqual([
          `${ID(1)} true received`,
          `${ID(1)} - duplicate_skipped`,
          `${ID(1)} - acked`,
          `${ID(2)} false received`,
          `${ID(2)} - business_committed`,
          `${ID(2)} - acked`,
          `${ID(3)} false received`,
          `${ID(3)} - business_committed`,
          `${ID(3)} - acked`,
          '- - done',
        ]);
        expect(run2.at(-1)).toMatch(new RegExp(` queue=${CRASH_Q} received=3 status=done$`));
        expect(read('inspect-db.out.txt')[0]).toMatch(
          /^\[inspect\] .* business_rows=3 processed_rows=3 status=snapshot$/,
        );
      },
    });
  });

  it("resets only this lab's rows and purges what an interrupted run left in the queue", async () => {
    // an interrupted run: a stale message, and message 2 already marked as processed with its order row
    await s.broker.sendConfirmed(n.q('orders.crash'), '{"eventType":"order.created"}', { messageId: 'stale' });
    await s.db`INSERT INTO ${s.db(n.t('processed_messages'))} (lab, message_id, consumer) VALUES ('consumer-crash', ${ID(2)}, 'consumer-1') ON CONFLICT DO NOTHING`;
    await s.db`INSERT INTO ${s.db(n.t('orders'))} (lab, order_id, message_id, trace_id, amount) VALUES ('consumer-crash', 'order-1002', ${ID(2)}, 't', 1)`;
    // another lab's idempotency row for the same message id must neither be deleted nor block this lab
    await s.db`INSERT INTO ${s.db(n.t('processed_messages'))} (lab, message_id, consumer) VALUES ('i_crash-other-lab', ${ID(1)}, 'consumer-1') ON CONFLICT DO NOTHING`;
    try {
      const { code, report } = await runLabJson('consumer-crash');
      expect(code, JSON.stringify(report.checks)).toBe(0);
      expect((await rows()).orders).toHaveLength(3);
      const other =
        await s.db`SELECT count(*)::int AS n FROM ${s.db(n.t('processed_messages'))} WHERE lab = 'i_crash-other-lab'`;
      expect(other[0]?.n).toBe(1);
      // what the run observed: the crash window, and who got which delivery
      expect(report.facts).toMatchObject({
        crashSignal: 'SIGKILL',
        rowsAtCrash: [ID(1)],
        committedNotAcked: [ID(1)],
        readyAfterCrash: 3,
        processedRows: 3,
      });
      expect(report.facts.deliveries).toEqual([
        { process: 'consumer-run1', messageId: ID(1), redelivered: false },
        { process: 'consumer-run2', messageId: ID(1), redelivered: true },
        { process: 'consumer-run2', messageId: ID(2), redelivered: false },
        { process: 'consumer-run2', messageId: ID(3), redelivered: false },
      ]);
      // the parent's checkpoints: each replay gate of the consumer processes (src/kit/gates/replay-gate.ts), and after-crash
      const waits = report.events.filter((e) => e.source === 'checkpoint' && e.status === 'waiting');
      expect(waits.map((e) => e.checkpoint)).toEqual([
        'after-delivery',
        'before-ack',
        'after-crash',
        ...Array.from({ length: 3 }, () => ['after-delivery', 'before-ack']).flat(),
      ]);
    } finally {
      await s.db`DELETE FROM ${s.db(n.t('processed_messages'))} WHERE lab = 'i_crash-other-lab'`;
    }
  });

  it('--namespace keeps its own queue and tables, in the consumer processes too', async () => {
    const r = await mqlab(['consumer-crash', '--namespace', 'i_crash']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await queueState('i_crash.orders.crash')).toEqual({ ready: 0, consumers: 0 });
    expect((await rows('i_crash_')).orders).toHaveLength(3);
  });

  it('--step: 20 s at one pause of consumer-run2 does not count against its 15 s bound; PASS', async () => {
    // a teacher talks at a pause: the consumer waits at its gate, and its bound (15 s, the parent's 30 s) waits too
    const { child, stderrShows, exited } = startMqlab(['consumer-crash', '--namespace', 'i_crash_pause', '--step']);
    for (const k of [1, 2, 3]) {
      await stderrShows(`── checkpoint ${k}:`, 60_000);
      child.stdin.write('\n');
    }
    await stderrShows('── checkpoint 4: after-delivery  (consumer-run2)', 60_000);
    await new Promise((r) => setTimeout(r, 20_000));
    child.stdin.end('\n'.repeat(20));
    const r = await exited(90_000);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stdout)).toContain('RESULT: all assertions passed');
  }, 150_000);

  it('rejects a bad --gate (or its old name --gate-ms) with one line and exit code 2', async () => {
    const r = await mqlab(['consumer-crash', '--gate-ms', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "mqlab: --gate must be a duration (e.g. 500ms, 2s, 90m, 12h, 30d; a bare number is ms), got 'soon'",
    );
    expect(r.stdout).toBe('');
  });
});

function field(line: string, key: string): string | undefined {
  return new RegExp(`(?:^| )${key}=(\\S+)`).exec(line)?.[1];
}
function status(line: string): string | undefined {
  return field(line, 'status');
}
