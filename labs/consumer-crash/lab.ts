/**
 * consumer-crash — a consumer dies between its business commit and its ack (docs/labs/consumer-crash.md).
 *
 * producer (in-process, confirms) ──3× order.created──▶ orders.crash (quorum)
 *   consumer-run1 (own process, prefetch 1): tx{processed_messages + orders} commit ─✗ SIGKILL before ack
 *   broker: connection gone → the unacked message is ready again, redelivered=true
 *   consumer-run2 (own process): 001 redelivered → key conflict → duplicate_skipped → ack; 002, 003 → commit → ack
 */
import {
  type LabContext,
  runChild,
  startAhead,
  check,
  must,
  keepEvents,
  type LabEvent,
  labCode,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { SERVICE, envelopeFields, orderEvents, publishProps } from './orders.js';
import { LAB, names, reset, schema, topology } from './names.js';
import { ackedMessageIds, committedNotAcked, observeDeliveries, summaryLine } from './verdicts.js';
const MESSAGES = 3;
const CRASH_AFTER_COMMITS = 1;
const CONSUMER_SCRIPT = new URL('./consumer.js', import.meta.url);

export const lab = labCode(meta, {
  topology,
  schema,
  reset,

  async run(ctx) {
    const name = names(ctx.names);
    const { broker, db, log } = ctx;
    const gateMs = String(ctx.options.gateMs);

    const produced: LabEvent[] = [];
    for (const e of orderEvents(MESSAGES)) {
      const t0 = ctx.now();
      await broker.sendConfirmed(name.queue, JSON.stringify(e), publishProps(e));
      const durationMs = Math.round(ctx.now() - t0);
      produced.push(
        log.emit('producer', {
          ...SERVICE,
          ...envelopeFields(e),
          destination: name.queue,
          routingKey: name.queue,
          durationMs,
          status: 'confirmed',
        }),
      );
    }
    const confirmed = produced.length;
    produced.push(log.emit('producer', { ...SERVICE, destination: name.queue, confirmed, status: 'done' }));
    keepEvents(ctx.outDir, 'producer', produced);

    ctx.progress(
      `consumer-run1: consumes until it has committed ${CRASH_AFTER_COMMITS} order, then kills itself before the ack`,
    );
    // run 2's process starts now and connects while run 1 works; it consumes only once told (after the crash),
    // with the count run 1 left, known only then
    const run2Ahead = startAhead(ctx, 'consumer-run2', CONSUMER_SCRIPT, {
      args: ['--gate-ms', gateMs],
      names: name,
      timeoutMs: 30_000,
      gates: true,
    });
    const run1 = await runChild(ctx, 'consumer-run1', CONSUMER_SCRIPT, {
      args: ['--crash-after-commits', String(CRASH_AFTER_COMMITS), '--gate-ms', gateMs],
      names: name,
      timeoutMs: 30_000,
      gates: true,
    });
    const rowsAtCrash = (await db`SELECT message_id FROM ${db(name.orders)} WHERE lab = ${LAB} ORDER BY id`).map((r) =>
      String(r.message_id),
    );
    const crashWindow = committedNotAcked(run1.events, rowsAtCrash);

    // Everything run 1 did not ack must be ready again once the broker has seen its connection die.
    const outstanding = confirmed - ackedMessageIds(run1.events).length;
    const readyAfterCrash = await readyWhen(ctx, () => broker.depth(name.queue), outstanding, 2_000);
    await ctx.checkpoint('after-crash', {
      exitCode: run1.exitCode,
      businessRows: rowsAtCrash.length,
      ready: readyAfterCrash,
    });

    ctx.progress(`consumer-run2: consumes the ${outstanding} messages run 1 did not ack`);
    const run2 = await run2Ahead.start(['--expect', String(outstanding)]);

    const [counts] = await db`
    SELECT (SELECT count(*)::int FROM ${db(name.orders)} WHERE lab = ${LAB}) AS business,
           (SELECT count(*)::int FROM ${db(name.processed)} WHERE lab = ${LAB}) AS processed`;
    const rows = must(counts, 'the business/processed row counts');
    const queueDepthAfter = await broker.depth(name.queue);
    const inspect = log.emit('inspect', {
      ...SERVICE,
      business_rows: rows.business,
      processed_rows: rows.processed,
      status: 'snapshot',
    });
    keepEvents(ctx.outDir, 'inspect-db', [inspect]);

    const seen = observeDeliveries([run1.events, run2.events]);
    const summary = {
      ...seen,
      crashExitCode: run1.exitCode,
      committedNotAcked: crashWindow.length,
      readyAfterCrash,
      businessRows: rows.business as number,
      processedRows: rows.processed as number,
    };
    return {
      lines: [summaryLine(summary)],
      checks: [
        check('crashExitCode', 137, run1.exitCode),
        check('crashAfterBusinessCommit', CRASH_AFTER_COMMITS, crashWindow.length),
        check('receivedTotal', MESSAGES + CRASH_AFTER_COMMITS, seen.receivedTotal),
        check('redeliveredCount', CRASH_AFTER_COMMITS, seen.redeliveredCount),
        check('duplicatesObserved', CRASH_AFTER_COMMITS, seen.duplicatesObserved),
        check('uniqueMessageIds', MESSAGES, seen.uniqueMessageIds),
        check('business_rows', MESSAGES, summary.businessRows),
        check('queueDepthAfter', 0, queueDepthAfter),
        check('consumer-run2.exitCode', 0, run2.exitCode),
      ],
      facts: {
        crashSignal: run1.signal,
        committedNotAcked: crashWindow,
        rowsAtCrash,
        readyAfterCrash,
        processedRows: summary.processedRows,
        deliveries: [run1, run2].flatMap((r) =>
          r.events
            .filter((e) => e.source === 'consumer' && e.fields.status === 'received')
            .map((e) => ({
              process: r.name,
              messageId: e.fields.messageId,
              redelivered: e.fields.redelivered === 'true',
            })),
        ),
      },
    };
  },
});

/** sample a broker statistic until it reaches `target` (normally at once) or `ms` pass; the last sample */
async function readyWhen(ctx: LabContext, sample: () => Promise<number>, target: number, ms: number): Promise<number> {
  const end = ctx.now() + ms;
  let n = await sample();
  while (n < target && ctx.now() < end) {
    await ctx.sleep(10);
    n = await sample();
  }
  return n;
}
