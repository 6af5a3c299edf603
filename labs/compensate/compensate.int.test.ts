import { describe, expect, it } from 'vitest';
import { expectLabPasses, runLabJson, useNamespace, useServices } from '../../test/helpers.js';

/** the facts these tests read */
interface Outcome {
  pid: number;
  blockedPid?: number;
  changed: number;
  stockAdded: number;
}
interface CompensateFacts {
  [fact: string]: unknown;
  race: { outcomes: Outcome[] };
  checkThenAct: { outcomes: Outcome[]; after: unknown };
}

const n = useNamespace(import.meta.url);

const SUMMARY_LINE = 'compensation: attempts=2 applied=1 reservation=RELEASED available=10';

describe('compensate lab against the real database', () => {
  const s = useServices();

  it('passes twice in a row and prints the summary line and its checks', async () => {
    await expectLabPasses(['compensate'], {
      line: SUMMARY_LINE,
      pass: {
        applied: '1',
        changedRows: '1,0',
        reservation: 'RELEASED',
        available: '10',
        checkThenActApplied: '2',
        checkThenActAvailable: '11',
        raceOverlapped: 'true',
        raceApplied: '1',
        raceAvailable: '10',
      },
    });
  });

  it('starts from the starting rows whatever an earlier run left, and ends RELEASED with 10 in stock', async () => {
    // leftovers of an interrupted run: stock already changed, reservation already released
    await s.db`UPDATE ${s.db(n.t('retry_stock'))} SET available = 3 WHERE sku = 'book'`;
    await s.db`UPDATE ${s.db(n.t('retry_reservation'))} SET state = 'RELEASED' WHERE order_id = 'order-42'`;
    const { code, report } = await runLabJson<CompensateFacts>('compensate');
    expect(code).toBe(0);
    expect(report.facts.start).toEqual({ reservation: 'RESERVED', available: 9 });
    const reservation =
      await s.db`SELECT order_id, state FROM ${s.db(n.t('retry_reservation'))} WHERE order_id = 'order-42'`;
    const stock = await s.db`SELECT sku, available FROM ${s.db(n.t('retry_stock'))} WHERE sku = 'book'`;
    expect(reservation.map((r) => ({ ...r }))).toEqual([{ order_id: 'order-42', state: 'RELEASED' }]);
    expect(stock.map((r) => ({ ...r }))).toEqual([{ sku: 'book', available: 10 }]);
  });

  it('the racing attempts ran on two connections and the loser waited on the winner’s row lock', async () => {
    const { code, report } = await runLabJson<CompensateFacts>('compensate');
    expect(code).toBe(0);
    for (const phase of ['checkThenAct', 'race'] as const) {
      const { outcomes } = report.facts[phase];
      const holder = outcomes.find((o) => o.blockedPid !== undefined);
      const other = outcomes.find((o) => o !== holder);
      expect(holder?.pid).not.toBe(other?.pid);
      expect(holder?.blockedPid).toBe(other?.pid);
    }
    // conditional: one release won, the other found nothing to release; check-then-act: both released
    expect(report.facts.race.outcomes.map((o) => o.changed).sort()).toEqual([0, 1]);
    expect(report.facts.checkThenAct.outcomes.map((o) => o.stockAdded)).toEqual([1, 1]);
    expect(report.facts.checkThenAct.after).toEqual({ reservation: 'RELEASED', available: 11 });
  });

  it('--namespace uses its own tables', async () => {
    await expectLabPasses(['compensate', '--namespace', 'i_compensate'], { line: SUMMARY_LINE, runs: 1 });
    const [row] = await s.db`SELECT available FROM i_compensate_retry_stock WHERE sku = 'book'`;
    expect(row?.available).toBe(10);
  });
});
