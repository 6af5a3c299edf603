import { describe, expect, it } from 'vitest';
import { expectLabPasses, mqlab, runLabJson, startMqlab, useNamespace, useServices } from '../../test/helpers.js';

/** the facts these tests read */
interface OrderingFacts {
  [fact: string]: unknown;
  appliedEvents: string[];
  staleEvents: { eventId: string }[];
}

const n = useNamespace(import.meta.url);

const LINE =
  'ordering: aggregate=order-42 processingOrder=[2, 1] storedVersion=2 staleEvents=1 lostEvents=0 naiveFinalVersion=1';
const QUEUES = ['ordering.work', 'ordering.delay'];

describe('ordering lab against the real broker and database', () => {
  const s = useServices();

  /** what the database and the broker hold after a run, whatever the lab printed */
  async function expectVersion2StoredAndVersion1Stale(prefix = `${n.namespace}_`) {
    const [state] =
      await s.db`SELECT version, event_id, status FROM ${s.db(prefix + 'ordering_state')} WHERE aggregate_id = 'order-42'`;
    expect(state).toMatchObject({ version: 2, event_id: 'order-42-v2', status: 'paid' });
    const stale = await s.db<
      { event_id: string; incoming_version: number; stored_version: number; recorded_at: Date }[]
    >`SELECT event_id, incoming_version, stored_version, recorded_at FROM ${s.db(prefix + 'ordering_stale')} WHERE aggregate_id = 'order-42'`;
    expect(
      stale.map(({ event_id, incoming_version, stored_version }) => ({ event_id, incoming_version, stored_version })),
    ).toEqual([{ event_id: 'order-42-v1', incoming_version: 1, stored_version: 2 }]);
    const applied = await s.db<
      { event_id: string; version: number; applied_at: Date }[]
    >`SELECT event_id, version, applied_at FROM ${s.db(prefix + 'ordering_applied')} WHERE aggregate_id = 'order-42'`;
    expect(applied.map((r) => [r.event_id, r.version])).toEqual([['order-42-v2', 2]]);
    // the database's own clock agrees with the consumer: v2 committed before v1 was recorded stale
    expect(applied[0]?.applied_at.getTime()).toBeLessThan(stale[0]?.recorded_at.getTime() ?? NaN);
    // the naive table saw the same deliveries and let the late v1 overwrite v2
    const [naive] =
      await s.db`SELECT version, status FROM ${s.db(prefix + 'ordering_naive_state')} WHERE aggregate_id = 'order-42'`;
    expect(naive).toMatchObject({ version: 1, status: 'placed' });
    for (const q of QUEUES) expect(await s.broker.depth(prefix ? `${prefix.slice(0, -1)}.${q}` : q)).toBe(0);
  }

  it('passes twice in a row: v2 stored, v1 recorded stale, queues empty', async () => {
    await expectLabPasses(['ordering'], {
      line: LINE,
      pass: {
        processingOrder: '2,1',
        v1Attempts: '1,2',
        storedVersion: '2',
        staleEvents: '1',
        staleEvent: 'order-42-v1 incoming=1 stored=2',
        lostEvents: '0',
        naiveFinalVersion: '1',
        queueDepthAfter: '0',
      },
      check: () => expectVersion2StoredAndVersion1Stale(),
    });
  });

  it('the retry of v1 waited the TTL, and every published event is accounted for', async () => {
    const { code, report } = await runLabJson<OrderingFacts>('ordering');
    expect(code, JSON.stringify(report.checks)).toBe(0);
    expect(report.facts.commitOrder).toEqual([
      { eventId: 'order-42-v2', version: 2, outcome: 'applied' },
      { eventId: 'order-42-v1', version: 1, outcome: 'stale' },
    ]);
    expect(report.facts.retryGapMs).toBeGreaterThanOrEqual(300);
    expect(report.facts.naiveFinalVersionFromOrder).toBe(1);
    expect([...report.facts.appliedEvents, ...report.facts.staleEvents.map((e) => e.eventId)].sort()).toEqual([
      'order-42-v1',
      'order-42-v2',
    ]);
  });

  it('starts from known data whatever an earlier run left behind', async () => {
    for (const q of QUEUES.map(n.q))
      await s.broker.sendConfirmed(q, 'left over', { messageId: 'leftover', headers: { attempt: 9 } });
    await s.db`UPDATE ${s.db(n.t('ordering_state'))} SET version = 7 WHERE aggregate_id = 'order-42'`;
    await s.db`INSERT INTO ${s.db(n.t('ordering_stale'))} VALUES ('order-42-v0', 'order-42', 0, 7) ON CONFLICT DO NOTHING`;
    const r = await mqlab(['ordering']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    await expectVersion2StoredAndVersion1Stale();
  });

  it('declares the TTL delay queue that dead-letters back to the work queue', async () => {
    const delay = await s.mgmt.queue(n.q('ordering.delay'));
    expect(delay).toMatchObject({
      type: 'quorum',
      arguments: {
        'x-message-ttl': 300,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': n.q('ordering.work'),
      },
    });
    expect(await s.mgmt.queue(n.q('ordering.work'))).toMatchObject({ type: 'quorum' });
  });

  it('--namespace keeps its own queues and tables', async () => {
    await expectLabPasses(['ordering', '--namespace', 'i_ordering'], { line: LINE, runs: 1 });
    await expectVersion2StoredAndVersion1Stale('i_ordering_');
  });

  it('Ctrl-C while v1 waits in the delay queue exits 130, and the next run is exact again', async () => {
    const { child, stderrShows } = startMqlab(['ordering', '-v']);
    await stderrShows('status=transient_failure_retry_confirmed', 60_000);
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(r.stderr).toContain('interrupted');
    // v1's retry copy (and maybe v2) is still in the broker: the next run must not see it
    expect(
      (await s.broker.depth(n.q('ordering.work'))) + (await s.broker.depth(n.q('ordering.delay'))),
    ).toBeGreaterThanOrEqual(1);
    const again = await mqlab(['ordering']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    await expectVersion2StoredAndVersion1Stale();
  });
});
