import { describe, expect, it } from 'vitest';
import { expectLabPasses, runLabJson, useNamespace, useServices } from '../../test/helpers.js';
import { messagesLeft } from './queue-left.js';

/** the facts these tests read */
interface ReplayFacts {
  [fact: string]: unknown;
  timeline: string[];
}

const n = useNamespace(import.meta.url);

const SUMMARY_LINE =
  'replay: approved=1 stableEventId=true repairedPayload=true sourceRemovedAfterConfirm=true verified=1';
const DEAD = 'me12.retry.replay.dead';
const WORK = 'me12.retry.replay.work';

describe('replay lab against the real broker and database', () => {
  const s = useServices();

  it('passes twice in a row and prints the summary line and its checks', async () => {
    await expectLabPasses(['replay'], {
      line: SUMMARY_LINE,
      pass: {
        stableEventId: 'true',
        repairedPayload: 'true',
        sourceRemovedAfterConfirm: 'true',
        verified: '1',
        auditState: 'VERIFIED',
        queueDepthAfter: '0',
      },
      exact: true,
    });
  });

  it('ends with the audit row VERIFIED and both queues empty, whatever an earlier run left behind', async () => {
    // leftovers of an interrupted run: a stale message in each queue, the audit row in another state
    for (const q of [DEAD, WORK].map(n.q)) await s.broker.sendConfirmed(q, 'amount=stale', { messageId: 'stale' });
    await s.db`INSERT INTO ${s.db(n.t('retry_replay_audit'))} VALUES ('repair-42', 'stale', 'REJECTED')
               ON CONFLICT (event_id) DO UPDATE SET reason = 'stale', state = 'REJECTED'`;
    const { code, report } = await runLabJson<ReplayFacts>('replay');
    expect(code).toBe(0);
    const rows =
      await s.db`SELECT event_id, reason, state FROM ${s.db(n.t('retry_replay_audit'))} WHERE event_id = 'repair-42'`;
    expect(rows.map((r) => ({ ...r }))).toEqual([
      { event_id: 'repair-42', reason: 'verified order amount=10', state: 'VERIFIED' },
    ]);
    for (const q of [DEAD, WORK].map(n.q)) {
      expect(await s.broker.depth(q)).toBe(0);
      expect(await s.broker.get(q)).toBeNull();
    }
    // what each side saw: the broken original on the dead queue, the repaired copy under the same id
    expect(report.facts.original).toEqual({ id: 'repair-42', body: 'amount=invalid' });
    expect(report.facts.received).toEqual({ id: 'repair-42', body: 'amount=10' });
    const timeline = report.facts.timeline;
    expect(timeline.indexOf('repair-confirmed')).toBeGreaterThan(timeline.indexOf('approval-read'));
    expect(timeline.indexOf('source-acked')).toBeGreaterThan(timeline.indexOf('repair-confirmed'));
    expect(timeline.indexOf('audit-verified')).toBeGreaterThan(timeline.indexOf('receiver-got'));
  });

  it('declares both queues as durable quorum queues', async () => {
    for (const q of [DEAD, WORK].map(n.q))
      expect(await s.mgmt.queue(q)).toMatchObject({ type: 'quorum', arguments: { 'x-queue-type': 'quorum' } });
  });

  it('--namespace keeps two runs apart: its own queues and its own table', async () => {
    await expectLabPasses(['replay', '--namespace', 'i_replay'], { line: SUMMARY_LINE, runs: 1 });
    for (const q of [DEAD, WORK]) expect(await s.mgmt.queue(`i_replay.${q}`)).toMatchObject({ type: 'quorum' });
    const rows = await s.db<
      { state: string }[]
    >`SELECT state FROM i_replay_retry_replay_audit WHERE event_id = 'repair-42'`;
    expect(rows.map((r) => r.state)).toEqual(['VERIFIED']);
  });
});

describe('messagesLeft (how the lab sees that the source is empty)', () => {
  const probe = 'i_replay.replay.probe';
  const s = useServices({
    setup: async ({ broker }) => {
      const ch = await broker.newChannel();
      await ch.assertQueue(probe, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
      await ch.purgeQueue(probe);
      await ch.close();
    },
    teardown: async ({ broker }) => {
      const ch = await broker.newChannel();
      await ch.deleteQueue(probe).catch(() => {});
    },
  });

  async function deliverOnce(ack: boolean) {
    await s.broker.sendConfirmed(probe, 'amount=invalid', { messageId: ack ? 'acked' : 'held' });
    const ch = await s.broker.newChannel();
    await ch.prefetch(1);
    let tag = '';
    const got = new Promise<void>((resolve) => {
      void ch
        .consume(probe, (m) => (m && ack && ch.ack(m), resolve()), { noAck: false })
        .then((r) => (tag = r.consumerTag));
    });
    await got;
    await ch.cancel(tag);
    const left = await messagesLeft(ch, probe);
    await ch.close();
    return left;
  }

  it('counts a delivery the channel still holds unacked, and puts it back', async () => {
    expect(await deliverOnce(false)).toEqual({ count: 1, ids: ['held'] });
    const back = await s.broker.get(probe);
    expect(back?.messageId).toBe('held');
    back?.ack();
  });

  it('finds nothing once the delivery was acked', async () => {
    expect(await deliverOnce(true)).toEqual({ count: 0, ids: [] });
  });
});
