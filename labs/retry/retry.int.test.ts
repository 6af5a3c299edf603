import { describe, expect, it } from 'vitest';
import {
  expectLabPasses,
  mqlab,
  passLines,
  runLabJson,
  startMqlab,
  useNamespace,
  useServices,
} from '../../test/helpers.js';

/** the facts these tests read */
interface RetryFacts {
  poisonDeath: unknown;
  retryGapsMs: number[];
}

const n = useNamespace(import.meta.url);

const SUMMARY_LINE = 'retry: healthyAttempts=1 transientAttempts=[1, 2, 3] businessRows=2 poisonDeadLettered=true';

describe('retry lab against the real broker and database', () => {
  const s = useServices();

  it('passes twice in a row and prints the summary line and its checks', async () => {
    await expectLabPasses(['retry'], {
      line: SUMMARY_LINE,
      pass: {
        healthyAttempts: '1',
        transientAttempts: '1,2,3',
        businessRows: '2',
        poisonDeadLettered: 'true',
        queueDepthAfter: '0',
      },
    });
  });

  it('leaves exactly the two business rows and empty queues, whatever an earlier run left behind', async () => {
    expect.hasAssertions(); // some assertions sit in loops over what the run observed
    // leftovers of an interrupted run: a stale message in each queue and a row for the poison event
    for (const q of [n.q('me12.retry.work'), n.q('me12.retry.delay'), n.q('me12.retry.dlq')])
      await s.broker.sendConfirmed(q, 'stale', { messageId: 'stale', headers: { attempt: 9 } });
    await s.db`INSERT INTO ${s.db(n.t('retry_effect'))} VALUES ('poison') ON CONFLICT DO NOTHING`;
    const { code, report } = await runLabJson<RetryFacts>('retry');
    expect(code, JSON.stringify(report.checks)).toBe(0);
    const rows = await s.db<
      { event_id: string }[]
    >`SELECT event_id FROM ${s.db(n.t('retry_effect'))} ORDER BY event_id`;
    expect(rows.map((r) => r.event_id)).toEqual(['healthy', 'transient']);
    for (const q of [n.q('me12.retry.work'), n.q('me12.retry.delay'), n.q('me12.retry.dlq')])
      expect(await s.broker.depth(q)).toBe(0);
    // the broker stamped the poison message's death on the work queue with reason rejected
    expect(report.facts.poisonDeath).toMatchObject({ queue: n.q('me12.retry.work'), reason: 'rejected', count: 1 });
    // each retry waited at least the delay queue's TTL: two retries of the transient message
    expect(report.facts.retryGapsMs).toHaveLength(2);
    for (const gap of report.facts.retryGapsMs) expect(gap).toBeGreaterThanOrEqual(500);
  });

  it('declares the topology of docs/labs/retry.md', async () => {
    const work = await s.mgmt.queue(n.q('me12.retry.work'));
    const delay = await s.mgmt.queue(n.q('me12.retry.delay'));
    expect(work).toMatchObject({
      type: 'quorum',
      arguments: { 'x-dead-letter-exchange': n.q('me12.retry.dead'), 'x-dead-letter-routing-key': 'failed' },
    });
    expect(delay).toMatchObject({
      type: 'quorum',
      arguments: {
        'x-message-ttl': 500,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': n.q('me12.retry.work'),
      },
    });
    const bindings = await s.mgmt.bindings();
    expect(bindings).toContainEqual(
      expect.objectContaining({
        source: n.q('me12.retry.dead'),
        destination: n.q('me12.retry.dlq'),
        routing_key: 'failed',
      }),
    );
  });

  it('--namespace keeps two runs apart: its own queues and its own table', async () => {
    const r = await mqlab(['retry', '--namespace', 'i_retry1']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await s.mgmt.queue('i_retry1.me12.retry.work')).not.toBeNull();
    const rows = await s.db`SELECT count(*)::int AS n FROM i_retry1_retry_effect`;
    expect(rows[0]?.n).toBe(2);
  });

  it('Ctrl-C mid-run exits 130 and leaves nothing that breaks the next run', async () => {
    const { child, stderrShows } = startMqlab(['retry', '--verbose']);
    // the original is acked once its retry copy sits in the delay queue: the first TTL wait begins
    await stderrShows('messageId=transient attempt=1 status=acked', 30_000);
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(r.stderr).toContain('interrupted');
    const again = await mqlab(['retry']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it('--junit writes one testcase per check', async () => {
    const file = `/tmp/mqlab-retry-${process.pid}.junit.xml`;
    const r = await mqlab(['retry', '--junit', file]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const xml = (await import('node:fs')).readFileSync(file, 'utf8');
    expect(xml.match(/<testcase /g)?.length).toBe(Object.keys(passLines(r.stdout)).length);
    expect(xml).not.toContain('<failure');
  });
});
