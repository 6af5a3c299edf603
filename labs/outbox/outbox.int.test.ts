import { describe, expect, it } from 'vitest';
import { expectLabPasses, runLabJson, useNamespace, useServices } from '../../test/helpers.js';

const LINE =
  'outbox: committedOrders=2 relayExit=137 confirmedNotMarked=1 deliveries=3 duplicatesSkipped=1 ' +
  'effects=order-1:1,order-2:1 unsentAfter=0 rolledBackDelivered=0';
const NS = useNamespace(import.meta.url).namespace;
const ns = ['--namespace', NS];
const lab = 'outbox';

describe('outbox against the real broker and database', () => {
  const s = useServices();

  it('passes twice in a row; the tables and the queue say what happened', async () => {
    await expectLabPasses([lab, ...ns], {
      line: LINE,
      check: async () => {
        const orders = await s.db<
          { order_id: string }[]
        >`SELECT order_id FROM ${s.db(`${NS}_outbox_orders`)} ORDER BY order_id`;
        expect(orders.map((r) => r.order_id)).toEqual(['order-1', 'order-2']);
        const outbox = await s.db<
          { event_id: string; sent: boolean }[]
        >`SELECT event_id, sent_at IS NOT NULL AS sent FROM ${s.db(`${NS}_outbox_events`)} ORDER BY event_id`;
        expect(outbox.map((r) => `${r.event_id}:${r.sent}`)).toEqual(['evt-order-1:true', 'evt-order-2:true']);
        const effects = await s.db<
          { event_id: string }[]
        >`SELECT event_id FROM ${s.db(`${NS}_outbox_effect`)} ORDER BY event_id`;
        expect(effects.map((r) => r.event_id)).toEqual(['evt-order-1', 'evt-order-2']);
        expect(await s.broker.depth(`${NS}.me12.outbox.orders`)).toBe(0);
      },
    });
  });

  it('the relay that died had the confirm for evt-order-2 and had not marked it', async () => {
    const { code, report } = await runLabJson(lab, ns);
    expect(code).toBe(0);
    expect(report.facts.confirmedByRun1).toEqual(['evt-order-1', 'evt-order-2']);
    expect(report.facts.unsentAfterCrash).toEqual(['evt-order-2']);
    expect(report.facts.relayRun2Exit).toBe(0);
    const relay = report.events
      .filter((e: Record<string, string>) => e.source === 'relay')
      .map((e: Record<string, string>) => `${e.eventId ?? '-'}:${e.status}`);
    expect(relay).toContain('evt-order-2:crash_injected');
    const waiting = report.events.filter(
      (e: Record<string, string>) => e.source === 'checkpoint' && e.status === 'waiting',
    );
    expect(waiting.map((e: Record<string, string>) => e.checkpoint)).toEqual([
      'committed',
      'relay-crashed',
      'relayed',
      'consumed',
    ]);
  });
});
