/**
 * outbox — the business effect exactly once (an idempotency table and a local transaction), the
 * outbox making sure a business success is published, and a nack or timeout from the broker handled
 * by resending or by local compensation, where resending may duplicate (the source is quoted in
 * docs/labs/outbox.md).
 *
 *   business tx { orders row + outbox row } ×3 — order-3's transaction fails: neither row
 *   relay-run1 (process): SELECT unsent → publish (confirm) → UPDATE sent_at; ✗ SIGKILL after the 2nd confirm
 *   relay-run2 (process): the row left unsent is published again, then marked
 *   me12.outbox.orders ──▶ consumer: tx { claim event id in outbox_processed; effect row } → ack
 */
import { type LabContext, startAhead, check, checkAtLeast, summaryLine, must, labCode } from '../../src/kit/index.js';
import { meta } from './meta.js';
import { consumeAll } from './consumer.js';
import { placeOrders, writeOrder, type OutboxSteps } from './business.js';
import { ORDERS, names, reset, schema, topology, type OutboxNames } from './names.js';

const RELAY = new URL('./relay.js', import.meta.url);
/** the relay dies after this many confirms, before marking the last one sent */
const CRASH_AFTER_CONFIRM = 2;

export const lab = labCode(meta, {
  topology,
  schema,
  reset,

  async run(ctx) {
    const name = names(ctx.names);
    const { db, broker } = ctx;
    const rolledBack: string[] = ORDERS.filter((o) => !o.commits).map((o) => o.orderId);

    // the outbox's steps, as taught
    const steps = ctx.steps<OutboxSteps>({ writeOrder, secondRelay: (run) => run(), dedupe: true });
    // both relay processes start now and connect while the orders are placed; each relays only when told
    const relay1 = startAhead(ctx, 'relay-run1', RELAY, {
      args: ['--crash-after-confirm', String(CRASH_AFTER_CONFIRM)],
      names: name,
      timeoutMs: 20_000,
    });
    const relay2 = startAhead(ctx, 'relay-run2', RELAY, { names: name, timeoutMs: 20_000 });
    const placed = await placeOrders(ctx, name, steps);
    const committed = (await db`SELECT order_id FROM ${db(name.orders)} ORDER BY order_id`).map((r) =>
      String(r.order_id),
    );
    await ctx.checkpoint('committed', {
      orders: committed.join(','),
      outboxUnsent: await unsent(ctx, name),
      [name.queue]: await broker.depth(name.queue),
    });

    ctx.progress(
      `relay-run1: publishes the unsent outbox rows and is killed after confirm ${CRASH_AFTER_CONFIRM}, before marking that row sent`,
    );
    const run1 = await relay1.start();
    const confirmedByRun1 = new Set(
      run1.events.filter((e) => e.fields.status === 'confirmed').map((e) => e.fields.eventId),
    );
    const unsentAfterCrash = (await db`SELECT event_id FROM ${db(name.outbox)} WHERE sent_at IS NULL`).map((r) =>
      String(r.event_id),
    );
    const confirmedNotMarked = unsentAfterCrash.filter((id) => confirmedByRun1.has(id)).length;
    await ctx.checkpoint('relay-crashed', {
      exitCode: run1.exitCode,
      unsent: unsentAfterCrash.join(',') || 'none',
      confirmedNotMarked,
      [name.queue]: await broker.depth(name.queue),
    });

    let run2Exit: number | null = null;
    await steps.secondRelay(async () => {
      ctx.progress('relay-run2: publishes what is still unsent');
      run2Exit = (await relay2.start()).exitCode;
    });
    const unsentAfter = await unsent(ctx, name);
    const copies = await broker.depth(name.queue);
    await ctx.checkpoint('relayed', { unsent: unsentAfter, [name.queue]: copies });

    const consumed = copies > 0 ? await consumeAll(ctx, name, copies, steps) : [];
    const effects =
      await db`SELECT order_id, count(*)::int AS n FROM ${db(name.effects)} GROUP BY order_id ORDER BY order_id`;
    const effectLine = effects.map((r) => `${r.order_id}:${r.n}`).join(',');
    const duplicatesSkipped = consumed.filter((c) => c.outcome === 'duplicate_skipped').length;
    const [counts] = await db`
    SELECT (SELECT count(*)::int FROM ${db(name.orders)} WHERE order_id IN ${db(rolledBack)}) AS orders,
           (SELECT count(*)::int FROM ${db(name.outbox)} WHERE order_id IN ${db(rolledBack)}) AS outbox`;
    const rb = must(counts, 'the row counts of the rolled-back orders');
    const rolledBackDelivered = consumed.filter((c) => rolledBack.includes(c.orderId)).length;
    const rolledBackLine = `orders=${rb.orders} outbox=${rb.outbox} delivered=${rolledBackDelivered}`;
    await ctx.checkpoint('consumed', { deliveries: consumed.length, duplicatesSkipped, effects: effectLine });

    const summary = {
      committedOrders: committed.length,
      relayExit: run1.exitCode,
      confirmedNotMarked,
      deliveries: consumed.length,
      duplicatesSkipped,
      effects: effectLine,
      unsentAfter,
      rolledBackDelivered,
    };
    return {
      lines: [summaryLine(ctx.lab, summary)],
      checks: [
        check('relayExit', 137, run1.exitCode),
        check('confirmedNotMarked', 1, confirmedNotMarked),
        check('outboxUnsentAfter', 0, unsentAfter),
        checkAtLeast('duplicatesSkipped', 1, duplicatesSkipped),
        check('businessEffects', committed.map((id) => `${id}:1`).join(','), effectLine),
        check('rolledBackOrder', 'orders=0 outbox=0 delivered=0', rolledBackLine),
      ],
      facts: {
        placed,
        committedOrders: committed,
        confirmedByRun1: [...confirmedByRun1],
        unsentAfterCrash,
        relayRun2Exit: run2Exit,
        copiesOnQueue: copies,
        deliveries: consumed,
      },
    };
  },
});

async function unsent(ctx: LabContext, name: OutboxNames): Promise<number> {
  const [r] = await ctx.db`SELECT count(*)::int AS n FROM ${ctx.db(name.outbox)} WHERE sent_at IS NULL`;
  return must(r, 'the unsent outbox count').n as number;
}
