import { describe, expect, it } from 'vitest';
import { expectLabPasses, mqlab, passLines, useNamespace, useServices } from '../../test/helpers.js';
import { firstLab } from '../../test/report.js';

const NS = useNamespace(import.meta.url).namespace;
const LINE =
  'order-timeout: closed=[duplicate-check, extended, lost-check, unpaid] paid=[paid-during-check, paid-early] ' +
  'duplicateCheck=(deliveries=2 closeWrites=1) sweeperClosed=[extended, lost-check]';

describe('order-timeout lab against the real broker and database', () => {
  const s = useServices();
  const t = (name: string) => s.db(`${NS}_order_timeout_${name}`);

  it('passes twice in a row; the database shows each order where docs/labs/order-timeout.md says it belongs', async () => {
    await expectLabPasses(['order-timeout', '--namespace', NS], {
      line: LINE,
      check: async () => {
        const orders = await s.db`SELECT id, status, closed_by FROM ${t('orders')} ORDER BY id`;
        expect(orders.map((o) => `${o.id}:${o.status}:${o.closed_by ?? '-'}`)).toEqual([
          'duplicate-check:CLOSED:check',
          'extended:CLOSED:sweeper',
          'lost-check:CLOSED:sweeper',
          'paid-during-check:PAID:-',
          'paid-early:PAID:-',
          'unpaid:CLOSED:check',
        ]);
        // the trigger saw every write: closes happened after the deadline in force at that moment
        const early =
          await s.db`SELECT count(*)::int AS n FROM ${t('history')} WHERE new_status = 'CLOSED' AND at < deadline`;
        expect(early[0]?.n).toBe(0);
        // the late payment: the check read CREATED, the payment committed, then the UPDATE changed nothing
        const [c] =
          await s.db`SELECT c.read_status, c.updated_rows, c.read_at < o.paid_at AND o.paid_at < c.update_at AS between
          FROM ${t('checks')} c JOIN ${t('orders')} o ON o.id = c.order_id WHERE c.order_id = 'paid-during-check'`;
        expect(c).toMatchObject({ read_status: 'CREATED', updated_rows: 0, between: true });
        // the early check of the extended order changed nothing; its task stayed pending for the sweeper
        const ext = await s.db<
          { updated_rows: number }[]
        >`SELECT updated_rows FROM ${t('checks')} WHERE order_id = 'extended'`;
        expect(ext.map((r) => r.updated_rows)).toEqual([0]);
        // the lost check never reached the consumer
        const lost = await s.db`SELECT count(*)::int AS n FROM ${t('checks')} WHERE order_id = 'lost-check'`;
        expect(lost[0]?.n).toBe(0);
        for (const q of ['delay', 'check']) expect(await s.broker.depth(`${NS}.me12.order.${q}`)).toBe(0);
      },
    });
    const delay = await s.mgmt.queue(`${NS}.me12.order.delay`);
    expect(delay).toMatchObject({
      type: 'quorum',
      arguments: {
        'x-message-ttl': 1000,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': `${NS}.me12.order.check`,
      },
    });
  });

  it('--delay sets the TTL and the deadline; the margin follows it', async () => {
    const r = await mqlab(['order-timeout', '--namespace', NS, '--delay', '1500ms', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const lab = firstLab<{ observed: { latestCheckClose: { busyMs: number } } }>(r.stdout);
    const late = lab.checks.find((c) => c.name === 'latestCheckCloseAfterDeadlineMs');
    // one delay beyond the time the consumer was busy with other checks (observe.ts)
    expect(late).toMatchObject({ expected: 1500 + lab.facts.observed.latestCheckClose.busyMs, pass: true });
    expect((await s.mgmt.queue(`${NS}.me12.order.delay`))?.arguments['x-message-ttl']).toBe(1500);
    const [d] =
      await s.db`SELECT min(extract(epoch FROM deadline - created_at) * 1000)::int AS ms FROM ${t('orders')} WHERE id <> 'extended'`;
    expect(d?.ms).toBeGreaterThanOrEqual(1500);
  });

  it('bad --delay (or its old name --delay-ms): one line, exit 2', async () => {
    for (const flag of ['--delay', '--delay-ms']) {
      const r = await mqlab(['order-timeout', flag, '5']);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')[0]).toContain("--delay must be from 500ms to 1m, got '5'");
      expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    }
  });

  it('a malformed MQLAB_FAULT entry: one line, exit 2', async () => {
    const r = await mqlab(['order-timeout', '--namespace', NS], { MQLAB_FAULT: 'order-timeout' });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain("MQLAB_FAULT entry 'order-timeout' is not <lab>:<fault>");
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it('the PASS lines name every check', async () => {
    const r = await mqlab(['order-timeout', '--namespace', NS]);
    expect(Object.keys(passLines(r.stdout))).toHaveLength(11);
  });
});
