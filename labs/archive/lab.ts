/**
 * archive — dead letters archived into a history table by a separate archiver (the source material
 * it follows is quoted, section by section, in docs/labs/archive.md).
 *
 * Three orders die at the broker: A1001 is rejected on the business queue; A1002 first expires in the
 * pay-timeout queue (TTL) and is then rejected; a third has no order id. An archiver process is
 * SIGKILLed after committing its first row and before acking it; a second archiver gets that letter
 * again (ON CONFLICT DO NOTHING: still one row) and records the letter without an order id in the
 * failure table. Then A1001 goes ARCHIVED → IN_PROGRESS → FIXED, and retention purges an order
 * archived 31 days ago. Topology: see topology.ts.
 */
import {
  type LabContext,
  type ChildRun,
  runChild,
  check,
  javaList,
  deferred,
  formatDuration,
  must,
  labCode,
  type Delivery,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { names, reset, ROUTE, schema, topology, type ArchiveNames } from './names.js';
import { purgeArchive, setStatus, type ArchiveRow } from './store.js';

/** the steps of the lab a broken variant may replace (variants.ts, TEST ONLY) */
export interface ArchiveSteps {
  /** how the business consumer settles an order it cannot serve: rejected, so the broker dead-letters it */
  settleOrder(m: Delivery): void;
  /** the operator's status moves for A1001 after ARCHIVED */
  statusMoves: readonly ('IN_PROGRESS' | 'FIXED')[];
  /** the age of the row retention must purge: older than the 30-day retention */
  oldRowDays: number;
}

const ARCHIVER = new URL('./archiver.js', import.meta.url);
const RETENTION_MS = 30 * 86_400_000;
const LETTERS = [
  { messageId: 'order-A1001', route: ROUTE.created, payload: { orderId: 'A1001', sku: 'SKU-7', quantity: 2 } },
  { messageId: 'order-A1002', route: ROUTE.payPending, payload: { orderId: 'A1002', amount: 99.5 } },
  { messageId: 'order-without-id', route: ROUTE.created, payload: { sku: 'SKU-9', quantity: 1 } },
];

export const lab = labCode(meta, {
  topology,
  schema,
  reset,

  async run(ctx) {
    if (!ctx.caps.quorumMessageTtl)
      return { lines: [], checks: [], skipped: `RabbitMQ ${ctx.caps.version} has no quorum-queue TTL (3.10+)` };
    const name = names(ctx.names);
    const { db, log } = ctx;
    // the lab's steps, as taught
    const steps = ctx.steps<ArchiveSteps>({
      settleOrder: (m) => m.reject(false),
      statusMoves: ['IN_PROGRESS', 'FIXED'],
      oldRowDays: 31,
    });

    const { allDead } = await killOrders(ctx, name, steps);

    // archiver 1 (started while A1002 waits out its TTL) commits its first row and is SIGKILLed
    // before the ack: the broker takes that letter back
    const [run1] = await Promise.all([
      runChild(ctx, 'archiver-run1', ARCHIVER, { args: ['--kill-after-commit'], names: name }),
      allDead,
    ]);
    const killed = eventsOf(run1, 'killed_before_ack')[0]?.fields ?? {};
    const committed = await db<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM ${db(name.archive)} WHERE business_id = ${killed.businessId ?? ''}`;
    const committedBeforeKill = must(committed[0], 'the count of rows committed before the kill').n;
    ctx.progress(`archiver-run1 exited ${run1.exitCode} after committing ${killed.businessId ?? 'nothing'}`);
    const acked1 = eventsOf(run1, 'acked').length;
    const deadLetters =
      acked1 +
      (await depthReaches(
        ctx,
        name.dlq,
        LETTERS.length - acked1,
        'every dead letter, the killed archiver’s one back, in the DLQ',
      ));
    await ctx.checkpoint('archiver-killed', {
      businessId: killed.businessId,
      exitCode: run1.exitCode,
      dlqDepth: deadLetters - acked1,
    });

    // archiver 2 drains the DLQ: the redelivered letter hits the unique business id
    const run2 = await runChild(ctx, 'archiver-run2', ARCHIVER, { names: name });
    const again = eventsOf(run2, 'received').find((e) => e.fields.messageId === killed.messageId);
    const duplicateSkipped = eventsOf(run2, 'duplicate_skipped').length;

    const rows = await db<ArchiveRow[]>`SELECT * FROM ${db(name.archive)} ORDER BY business_id`;
    const failures = await db`SELECT message_id, sql_state FROM ${db(name.failure)} ORDER BY id`;
    const a1002 = rows.find((r) => r.business_id === 'A1002');
    const rowsForRedelivered = rows.filter((r) => r.business_id === killed.businessId).length;

    // an operator takes A1001: ARCHIVED → IN_PROGRESS → FIXED; the table refuses to go back
    const statuses = [String(rows.find((r) => r.business_id === 'A1001')?.status)];
    for (const s of steps.statusMoves)
      statuses.push(await setStatus(db, name, 'A1001', s).then(String, (e: { code?: string }) => `refused ${e.code}`));
    const backwards = await setStatus(db, name, 'A1001', 'ARCHIVED').then(
      () => 'accepted',
      (e: { code?: string }) => String(e.code),
    );
    log.emit('operator', { businessId: 'A1001', statuses, backwardsToArchived: backwards });

    // retention: an order archived 31 days ago goes, the fresh rows stay
    await insertOldRow(ctx, name, 'A0999', steps.oldRowDays);
    const purge = await purgeArchive(db, name, RETENTION_MS);
    log.emit('retention', {
      olderThan: formatDuration(RETENTION_MS),
      purged: purge.purged,
      kept: purge.kept,
      status: 'purged',
    });

    const depths = await Promise.all([name.work, name.payTimeout, name.dlq].map((q) => ctx.broker.depth(q)));
    const summary = {
      deadLetters,
      archived: rows.length,
      failures: failures.length,
      killedBeforeAck: killed.businessId ?? 'none',
      duplicateSkipped,
      rowsForRedelivered,
      statuses: javaList(statuses),
      purged: javaList(purge.purged),
      kept: purge.kept,
    };
    return {
      lines: [
        `archive: ${Object.entries(summary)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}`,
      ],
      checks: [
        check('deadLetters', LETTERS.length, deadLetters),
        check('firstArchiverExitCode', 137, run1.exitCode),
        check('committedBeforeKill', 1, committedBeforeKill),
        check('redeliveredToSecondArchiver', true, again?.fields.redelivered === 'true'),
        check('duplicateSkipped', 1, duplicateSkipped),
        check('rowsForRedelivered', 1, rowsForRedelivered),
        check(
          'archivedIds',
          ['A1001', 'A1002'],
          rows.map((r) => r.business_id),
        ),
        check(
          'attempts',
          [1, 2],
          rows.map((r) => r.attempts),
        ),
        check('firstDeath', `expired@${name.payTimeout}`, `${a1002?.first_death_reason}@${a1002?.first_death_queue}`),
        check('lastDeath', `rejected@${name.work}`, `${a1002?.last_death_reason}@${a1002?.last_death_queue}`),
        check(
          'originalRoute',
          `${name.business}/${ROUTE.payPending}`,
          `${a1002?.original_exchange}/${a1002?.original_routing_key}`,
        ),
        check(
          'failureRows',
          ['order-without-id:23502'],
          failures.map((f) => `${f.message_id}:${f.sql_state}`),
        ),
        check('statusLifecycle', ['ARCHIVED', 'IN_PROGRESS', 'FIXED'], statuses),
        check('backwardsStatusRefused', '23514', backwards),
        check('purged', ['A0999'], purge.purged),
        check('keptAfterPurge', 2, purge.kept),
        check(
          'queueDepthAfter',
          0,
          depths.reduce((a, b) => a + b, 0),
        ),
      ],
      facts: {
        archiverRuns: [run1, run2].map((r) => ({ name: r.name, exitCode: r.exitCode, signal: r.signal })),
        killedBeforeAck: killed,
        archivedRows: rows,
        failureRows: failures,
        purgeCutoff: purge.cutoff,
        queueDepthAfter: { [name.work]: depths[0], [name.payTimeout]: depths[1], [name.dlq]: depths[2] },
      },
    };
  },
});

/**
 * Publish the three orders through the business exchange; a consumer on the business queue rejects
 * every one (the inventory service is down), so the broker dead-letters them into the DLQ: A1002
 * only after it expired in the pay-timeout queue. Returns once the first letter is in the DLQ, with
 * a promise that settles when all three were rejected.
 */
async function killOrders(
  ctx: LabContext,
  name: ArchiveNames,
  steps: ArchiveSteps,
): Promise<{ allDead: Promise<void> }> {
  const { broker, log } = ctx;
  const rejected = deferred();
  let seen = 0;
  const business = await broker.consume(
    name.work,
    (m) => {
      steps.settleOrder(m);
      log.emit('business', {
        messageId: m.messageId,
        destination: name.work,
        reason: 'inventory service unavailable',
        status: 'rejected_to_dlx',
      });
      if (++seen === LETTERS.length) rejected.resolve();
    },
    { prefetch: LETTERS.length },
  );
  for (const l of LETTERS) {
    await broker.publishConfirmed(name.business, l.route, JSON.stringify(l.payload), {
      messageId: l.messageId,
      contentType: 'application/json',
    });
    log.emit('producer', { messageId: l.messageId, destination: `${name.business}/${l.route}`, status: 'confirmed' });
  }
  await depthReaches(ctx, name.dlq, 1, 'the first dead letter in the DLQ');
  const all = ctx.within(
    Promise.race([rejected.promise, business.failure]),
    10_000,
    'the business consumer to reject the three orders',
  );
  // in an object: an async function's returned promise would be awaited, and archiver 1 would start only after every rejection
  return { allDead: all.finally(() => business.cancel()) };
}

/** sample a queue's depth (a broker statistic) until it reaches n; returns the last sample */
async function depthReaches(ctx: LabContext, queue: string, n: number, what: string): Promise<number> {
  const end = ctx.now() + 5_000;
  let depth = await ctx.broker.depth(queue);
  while (depth < n && ctx.now() < end) {
    await ctx.sleep(10);
    depth = await ctx.broker.depth(queue);
  }
  if (depth < n) ctx.progress(`gave up waiting for ${what}: depth ${depth}, expected ${n}`);
  return depth;
}

const eventsOf = (run: ChildRun, status: string) => run.events.filter((e) => e.fields.status === status);

/** a row as the archiver would have written it `days` ago */
async function insertOldRow(ctx: LabContext, name: ArchiveNames, businessId: string, days: number) {
  const { db } = ctx;
  await db`
    INSERT INTO ${db(name.archive)} (business_id, message_id, payload, original_exchange, original_routing_key, first_death_reason,
      first_death_queue, first_death_at, last_death_reason, last_death_queue, last_death_at, attempts, archived_at)
    SELECT ${businessId}, ${`order-${businessId}`}, ${JSON.stringify({ orderId: businessId })}, ${name.business}, ${ROUTE.created}, 'rejected',
      ${name.work}, t, 'rejected', ${name.work}, t, 1, t
    FROM (SELECT now() - make_interval(days => ${days}) AS t) old`;
}
