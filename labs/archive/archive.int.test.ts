import { describe, expect, it } from 'vitest';
import { expectLabPasses, mqlab, runLabJson, useNamespace, useServices } from '../../test/helpers.js';
import type { ArchiveRow } from './store.js';

const n = useNamespace(import.meta.url);
/** a name as it appears inside a regular expression */
const re = (name: string) => name.replace(/[.]/g, '\\.');

const SUMMARY =
  'archive: deadLetters=3 archived=2 failures=1 killedBeforeAck=A1001 duplicateSkipped=1 rowsForRedelivered=1 ' +
  'statuses=[ARCHIVED, IN_PROGRESS, FIXED] purged=[A0999] kept=2';
const Q = {
  work: n.q('archive.order.business.queue'),
  payTimeout: n.q('archive.order.pay.timeout.queue'),
  dlq: n.q('archive.order.dead.archive.queue'),
};

describe('archive lab against the real broker and database', () => {
  const s = useServices();

  /** a row as the archiver writes it, archived `days` ago by the database's clock */
  const insertRow = (table: string, id: string, days: number, status = 'ARCHIVED') => s.db`
    INSERT INTO ${s.db(table)} (business_id, payload, original_exchange, original_routing_key, first_death_reason,
      first_death_queue, last_death_reason, last_death_queue, attempts, status, archived_at)
    VALUES (${id}, ${JSON.stringify({ orderId: id })}, ${n.q('archive.exchange.business')}, 'order.created', 'rejected',
      ${Q.work}, 'rejected', ${Q.work}, 1, ${status}, now() - make_interval(days => ${days}))`;
  const ids = async (table = n.t('dead_letter_archive')) =>
    (await s.db<{ business_id: string }[]>`SELECT business_id FROM ${s.db(table)} ORDER BY business_id`).map(
      (r) => r.business_id,
    );

  it('passes twice in a row and prints its summary line and checks', async () => {
    await expectLabPasses(['archive'], {
      line: SUMMARY,
      pass: {
        deadLetters: '3',
        firstArchiverExitCode: '137',
        committedBeforeKill: '1',
        redeliveredToSecondArchiver: 'true',
        duplicateSkipped: '1',
        rowsForRedelivered: '1',
        failureRows: 'order-without-id:23502',
        backwardsStatusRefused: '23514',
        purged: 'A0999',
        queueDepthAfter: '0',
      },
    });
  });

  it('leaves one row per order with the broker’s death history, the refused letter in the failure table, empty queues', async () => {
    // leftovers of an interrupted run: a stale message in each queue, a stale row and a stale failure
    for (const q of Object.values(Q)) await s.broker.sendConfirmed(q, '{"orderId":"stale"}', { messageId: 'stale' });
    await s.db`DELETE FROM ${s.db(n.t('dead_letter_archive'))} WHERE business_id = 'A1001'`;
    await insertRow(n.t('dead_letter_archive'), 'A1001', 0, 'IN_PROGRESS');
    await s.db`INSERT INTO ${s.db(n.t('dead_letter_archive_failure'))} (message_id, payload, death_history, sql_state, error) VALUES ('stale', '{}', '[]', '23502', 'x')`;

    const { code, report } = await runLabJson('archive');
    expect(code, JSON.stringify(report.checks)).toBe(0);
    const rows = await s.db<ArchiveRow[]>`SELECT * FROM ${s.db(n.t('dead_letter_archive'))} ORDER BY business_id`;
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      business_id: 'A1001',
      message_id: 'order-A1001',
      original_exchange: n.q('archive.exchange.business'),
      original_routing_key: 'order.created',
      first_death_reason: 'rejected',
      first_death_queue: Q.work,
      last_death_reason: 'rejected',
      attempts: 1,
      status: 'FIXED',
    });
    expect(JSON.parse(rows[0]?.payload ?? '')).toEqual({ orderId: 'A1001', sku: 'SKU-7', quantity: 2 });
    expect(rows[1]).toMatchObject({
      business_id: 'A1002',
      original_routing_key: 'order.pay.pending',
      first_death_reason: 'expired',
      first_death_queue: Q.payTimeout,
      last_death_reason: 'rejected',
      last_death_queue: Q.work,
      attempts: 2,
      status: 'ARCHIVED',
    });
    // the broker stamps x-death times in whole seconds: the expiry comes no later than the rejection
    expect(rows[1]?.first_death_at?.getTime()).toBeLessThanOrEqual(rows[1]?.last_death_at?.getTime() ?? NaN);
    expect(Date.now() - (rows[1]?.archived_at.getTime() ?? NaN)).toBeLessThan(60_000);

    const failures = await s.db<
      { payload: string; error: string; death_history: unknown }[]
    >`SELECT * FROM ${s.db(n.t('dead_letter_archive_failure'))}`;
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ message_id: 'order-without-id', sql_state: '23502' });
    expect(failures[0]?.error).toMatch(/business_id/);
    expect(JSON.parse(failures[0]?.payload ?? '')).toEqual({ sku: 'SKU-9', quantity: 1 });
    expect(failures[0]?.death_history).toEqual([
      expect.objectContaining({ queue: Q.work, reason: 'rejected', count: 1 }),
    ]);

    for (const q of Object.values(Q)) expect(await s.broker.depth(q)).toBe(0);
    expect(report.facts.archiverRuns).toEqual([
      { name: 'archiver-run1', exitCode: 137, signal: 'SIGKILL' },
      { name: 'archiver-run2', exitCode: 0, signal: null },
    ]);
  });

  it('declares the topology: TTL pay-timeout queue back to the business exchange, business queue to the DLQ', async () => {
    expect(await s.mgmt.queue(Q.payTimeout)).toMatchObject({
      type: 'quorum',
      arguments: {
        'x-message-ttl': 200,
        'x-dead-letter-exchange': n.q('archive.exchange.business'),
        'x-dead-letter-routing-key': 'order.created',
      },
    });
    expect(await s.mgmt.queue(Q.work)).toMatchObject({
      type: 'quorum',
      arguments: { 'x-dead-letter-exchange': n.q('archive.exchange.dead'), 'x-dead-letter-routing-key': 'rk.dead' },
    });
    const bindings = await s.mgmt.bindings();
    expect(bindings).toContainEqual(
      expect.objectContaining({ source: n.q('archive.exchange.dead'), destination: Q.dlq, routing_key: 'rk.dead' }),
    );
    expect(bindings).toContainEqual(
      expect.objectContaining({
        source: n.q('archive.exchange.business'),
        destination: Q.payTimeout,
        routing_key: 'order.pay.pending',
      }),
    );
  });

  it('`mqlab archive list` shows the table as plain text, filtered by --status', async () => {
    expect((await mqlab(['archive'])).code).toBe(0);
    const all = await mqlab(['archive', 'list']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).not.toContain('\x1b['); // no colour escapes
    expect(all.lines[0]).toMatch(
      /^BUSINESS ID +STATUS +ATTEMPTS +FIRST DEATH +LAST DEATH +ORIGINAL ROUTE +ARCHIVED AT \(UTC\) +PAYLOAD$/,
    );
    expect(all.lines[1]).toMatch(
      new RegExp(
        `^A1002 +ARCHIVED +2 +expired @ ${re(Q.payTimeout)} +rejected +${re(n.q('archive.exchange.business'))} / order\\.pay\\.pending `,
      ),
    );
    expect(all.lines[2]).toMatch(new RegExp(`^A1001 +FIXED +1 +rejected @ ${re(Q.work)} `));
    expect(all.lines[3]).toBe(
      `2 row(s) in ${n.t('dead_letter_archive')}; 1 letter(s) the table refused are in ${n.t('dead_letter_archive_failure')}`,
    );

    const fixed = await mqlab(['archive', 'list', '--status', 'FIXED']);
    expect(fixed.code).toBe(0);
    expect(fixed.lines.slice(1, -1).map((l) => l.split(' ')[0])).toEqual(['A1001']);
    expect(fixed.lines.at(-1)).toMatch(new RegExp(`^1 row\\(s\\) in ${n.t('dead_letter_archive')} with status FIXED;`));

    const bad = await mqlab(['archive', 'list', '--status', 'DONE']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("mqlab: --status must be one of ARCHIVED, IN_PROGRESS, FIXED, got 'DONE'");
  });

  it('`mqlab archive purge --older-than 30d` deletes only the rows archived more than 30 days ago', async () => {
    expect((await mqlab(['archive'])).code).toBe(0);
    await insertRow(n.t('dead_letter_archive'), 'A0040', 40, 'FIXED');
    await insertRow(n.t('dead_letter_archive'), 'A0029', 29);
    const r = await mqlab(['archive', 'purge', '--older-than', '30d']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^purged 1 row\\(s\\) of ${n.t('dead_letter_archive')} archived before \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC \\(older than 30d\\); 3 row\\(s\\) kept$`,
      ),
    );
    expect(await ids()).toEqual(['A0029', 'A1001', 'A1002']);

    // bad or missing durations are usage errors and delete nothing
    for (const args of [['--older-than', '30x'], ['--older-than', '0d'], []]) {
      const bad = await mqlab(['archive', 'purge', ...args]);
      expect(bad.code, args.join(' ')).toBe(2);
    }
    expect(await ids()).toEqual(['A0029', 'A1001', 'A1002']);
  });

  it('`mqlab archive --help` lists the tools; --namespace reaches the lab and its tools', async () => {
    const help = await mqlab(['archive', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Commands:\n {2}purge +retention/m);
    expect(help.stdout).toMatch(/^ {2}list +show the archived dead letters/m);

    const r = await mqlab(['archive', '--namespace', 'i_archive']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await ids('i_archive_dead_letter_archive')).toEqual(['A1001', 'A1002']);
    expect(await s.mgmt.queue('i_archive.archive.order.dead.archive.queue')).not.toBeNull();
    // the flag works before and after the tool's name
    for (const args of [
      ['archive', 'list', '--namespace', 'i_archive'],
      ['archive', '--namespace', 'i_archive', 'list'],
    ]) {
      const list = await mqlab(args);
      expect(list.lines.at(-1)).toMatch(/^2 row\(s\) in i_archive_dead_letter_archive;/);
    }
  });
});
