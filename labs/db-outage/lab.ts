/**
 * db-outage — the database goes away while a delivery is between receive and commit.
 *
 * producer (confirms) ──5 messages──▶ dbo.work (quorum)
 *   consumer (prefetch 1): BEGIN; processed key + effect; … COMMIT; ack
 *   dbo-003: the transaction is open ── PostgreSQL stopped (pid exits, port refuses) ── COMMIT fails
 *     no ack: retry with backoff while holding it; hold budget spent → nack(requeue) → redelivered=true
 *   PostgreSQL started again (--down later) → commit → ack; the rest follow
 * account: each id one effect row, none lost, nothing acked before its commit
 */
import {
  type Outage,
  type Stopped,
  openDb,
  check,
  checkAtLeast,
  skipCheck,
  summaryLine,
  deferred,
  labCode,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { BACKOFF, HELD, MESSAGES, messageId, names, reset, schema, topology } from './names.js';
import { startConsumer, transact, type OutageSteps } from './consumer.js';
import { account, ackedBeforeCommit, expectedOutcome, heldOutcome } from './verdicts.js';

export const lab = labCode(meta, {
  topology,
  schema,
  reset,

  async run(ctx) {
    const name = names(ctx.names);
    const { downMs, holdBudgetMs } = ctx.options;
    const ids = Array.from({ length: MESSAGES }, (_, i) => messageId(i + 1));
    const heldId = messageId(HELD);
    // the experiment's steps, as taught
    const steps = ctx.steps<OutageSteps>({
      outage: async (whileDown) => {
        ctx.progress(`stopping PostgreSQL for ${downMs} ms while ${heldId} is between receive and commit`);
        const stopped = await ctx.services.outage('PostgreSQL', whileDown);
        ctx.progress(
          `PostgreSQL accepts connections again (${stopped.started.readyAt - stopped.started.startAt} ms after its start)`,
        );
        return stopped;
      },
      // acked only after the commit; given back when the hold budget is spent
      commitThenSettle: async (commit, ack, giveBack) => ((await commit()) ? ack() : giveBack()),
      transact,
    });
    for (const id of ids) await ctx.broker.sendConfirmed(name.queue, JSON.stringify({ id }), { messageId: id });
    ctx.log.emit('producer', { confirmed: ids.length, status: 'done' });

    // the consumer's own pool, without the run's loss watch: the outage reaches it as it reaches a service;
    // it connects again on the consumer's backoff, not the driver's (which grows to 20 s): a commit after
    // the restart waits for the consumer's next attempt, not for seconds of the driver's reconnect delay
    const { db } = await openDb(ctx.config.pgUrl, 1, undefined, { reconnect: BACKOFF });
    const holding = deferred<void>();
    const release = deferred<void>();
    const consumer = await startConsumer({
      amqpUrl: ctx.config.amqpUrl,
      db,
      name,
      holdBudgetMs,
      holdFor: (id, n) => (id === heldId && n === 1 ? (holding.resolve(), release.promise) : null),
      steps,
      emit: (fields) => ctx.log.emit('consumer', fields),
      sleep: (ms) => ctx.sleep(ms),
    });
    let outage: Outage<void> | null;
    /** ready messages while the held delivery waits (passive declare): the broker's view of what was acked */
    let readyWhileHeld = -1;
    try {
      await ctx.within(
        Promise.race([holding.promise, consumer.failure]),
        15_000,
        `the consumer to open the transaction of ${heldId}`,
      );
      await ctx.checkpoint('holding', { messageId: heldId });
      const whileDown = async (stopped: Stopped) => {
        readyWhileHeld = await ctx.broker.depth(name.queue);
        await ctx.checkpoint('postgres-down', {
          pid: stopped.pid ?? 'docker',
          probe: stopped.refused ?? 'connected',
          ready: readyWhileHeld,
        });
        release.resolve(); // the consumer goes on to COMMIT against a stopped database
        await ctx.sleep(Math.max(0, stopped.goneAt + downMs - Date.now()));
      };
      outage = await steps.outage(whileDown);
      await ctx.checkpoint('postgres-back', { committed: consumer.committed.size });
      // bounded: every id committed, or the consumer's retry budget twice over and a margin
      const deadline = Date.now() + 2 * holdBudgetMs + 5000;
      while (consumer.committed.size < ids.length && Date.now() < deadline)
        await Promise.race([ctx.sleep(100), consumer.failure]);
    } finally {
      release.resolve();
      await consumer.stop();
      await db.end({ timeout: 1 });
    }

    const rows = (
      await ctx.db`SELECT message_id, count(*)::int AS n FROM ${ctx.db(name.effects)} GROUP BY message_id`
    ).map((r) => ({ message_id: String(r.message_id), n: Number(r.n) }));
    const tally = account(ids, rows);
    const { record } = consumer;
    const failed = record.attempts.filter((a) => !a.ok);
    const firstFailure = failed.find((a) => a.id === heldId)?.at ?? null;
    const expected = expectedOutcome(firstFailure, outage?.started.readyAt ?? null, holdBudgetMs, BACKOFF.maxMs);
    const outcome = heldOutcome(record, heldId);
    const early = ackedBeforeCommit(record);
    const readyAfter = await ctx.broker.depth(name.queue);
    const downFor = outage ? outage.started.readyAt - outage.stopped.goneAt : 0;
    const redeliveries = record.deliveries.filter((d) => d.redelivered).length;

    return {
      lines: [
        summaryLine('db-outage', {
          downMs: downFor,
          failedCommits: failed.length,
          heldDelivery: outcome,
          redeliveries,
          effectRows: tally.rows,
          duplicateEffects: tally.duplicates,
          lostIds: tally.lost.length,
        }),
      ],
      checks: [
        check('postgresExited', true, outage !== null && outage.stopped.goneAt >= outage.stopped.stopAt),
        check('postgresRefused', 'ECONNREFUSED', outage?.stopped.refused ?? 'not stopped'),
        checkAtLeast('failedCommits', 1, failed.length),
        expected === null
          ? skipCheck(
              'heldDeliveryOutcome',
              outcome,
              `PostgreSQL came back within ${BACKOFF.maxMs} ms of the hold budget: either outcome is right`,
            )
          : check('heldDeliveryOutcome', expected, outcome),
        // prefetch 1: while dbo-003 is held unacked the broker sends nothing else, so the two after it stay ready
        check('readyWhileHeld', MESSAGES - HELD, readyWhileHeld),
        check('ackedBeforeCommit', 0, early.length),
        check('lostIds', 0, tally.lost.length),
        check('duplicateEffects', 0, tally.duplicates),
        check('effectRows', ids.length, tally.rows),
      ],
      facts: {
        heldId,
        pid: outage?.stopped.pid ?? null,
        downMs: downFor,
        restartMs: outage ? outage.started.readyAt - outage.started.startAt : null,
        stopMs: outage ? outage.stopped.goneAt - outage.stopped.stopAt : null,
        failedErrors: [...new Set(failed.map((a) => a.error))],
        heldAttempts: record.attempts.filter((a) => a.id === heldId).length,
        givenBack: record.givenBack.length,
        redeliveries,
        lost: tally.lost,
        ackedEarly: early,
        readyAfter,
      },
    };
  },
});
