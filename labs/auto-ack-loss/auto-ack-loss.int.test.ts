import { describe, expect, it } from 'vitest';
import { expectLabPasses, runLabJson, useNamespace, useServices } from '../../test/helpers.js';

const LINE =
  /^auto-ack-loss: confirmed=20 autoAckExit=137 autoAckDelivered=\d+ autoAckQueueAfterCrash=0 autoAckRows=5 autoAckLost=15 manualExit=137 manualRows=20 manualLost=0 manualRedelivered=\d+ unackedWhileOpen=5 readyAfterClose=10$/;
const NS = useNamespace(import.meta.url).namespace;
const ns = ['--namespace', NS];
const lab = 'auto-ack-loss';

describe('auto-ack-loss against the real broker and database', () => {
  const s = useServices();

  it('passes twice in a row; the rows and the queues say what was lost', async () => {
    await expectLabPasses([lab, ...ns], {
      line: LINE,
      check: async () => {
        const rows =
          await s.db`SELECT phase, count(*)::int AS n FROM ${s.db(`${NS}_autoack_effect`)} GROUP BY phase ORDER BY phase`;
        expect(rows.map((r) => `${r.phase}=${r.n}`)).toEqual(['auto=5', 'manual=20']);
        expect(await s.broker.depth(`${NS}.me12.autoack.orders`)).toBe(0);
        expect(await s.broker.depth(`${NS}.me12.manualack.orders`)).toBe(0);
        // the forgotten messages are ready again, for the next run's purge
        expect(await s.broker.depth(`${NS}.me12.noack.forgotten`)).toBe(10);
      },
    });
  });

  it('the auto-ack consumer had every message pushed to it (prefetch ignored) before it died', async () => {
    const { code, report } = await runLabJson(lab, ns);
    expect(code).toBe(0);
    expect(report.facts.autoAckDeliveredBeforeCrash).toBeGreaterThan(10);
    expect(report.facts.forgetWhileOpen).toMatchObject({ ready: 5, consumers: 1 });
    const waiting = report.events.filter(
      (e: Record<string, string>) => e.source === 'checkpoint' && e.status === 'waiting',
    );
    expect(waiting.map((e: Record<string, string>) => e.checkpoint)).toEqual([
      'auto-ack-crashed',
      'manual-crashed',
      'unacked-held',
      'returned',
    ]);
  });
});
