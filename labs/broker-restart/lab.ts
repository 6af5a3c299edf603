/**
 * broker-restart — the node goes away and comes back under two clients that reconnect by themselves.
 *
 * producer (confirms, reconnecting) ──30 ids, then a steady stream──▶ brk.work (quorum, durable)
 *   consumer (prefetch 5, reconnecting): tx{processed key + effect}; holds the acks of its first 5
 *   RabbitMQ node stopped (pid exits, port refuses) and started again
 *     consumer: subscribes again; its 5 held deliveries come back redelivered=true → key conflict → skipped
 *     producer: connects again, resends every id not confirmed, goes on
 * account: every id once in the effect table, every message the queue held delivered after the restart
 */
import {
  type ContextOf,
  type Outage,
  Broker,
  ReconnectingPublisher,
  type ReconnectOptions,
  openDb,
  check,
  checkAtLeast,
  summaryLine,
  maskUrl,
  type Backoff,
  labCode,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { FIRST_BATCH, PREFETCH, AFTER_RECONNECT, messageId, names, reset, schema, topology } from './names.js';
import {
  consume,
  produce,
  type ConsumerRecord,
  type Hooks,
  type ProducerRecord,
  type RestartSteps,
} from './clients.js';
import { tally } from './verdicts.js';

/**
 * the clients' reconnect backoff: from 100 ms, doubled, at most 500 ms. The node refuses connections
 * for its whole boot (5-10 s), and a client tries again only when its wait is over: with the default
 * cap of 2 s the first delivery after the boot came up to 2 s late (975 ms in a measured run)
 */
const BACKOFF: Backoff = { initialMs: 100, maxMs: 500 };
/** after the producer finished: how long without a delivery ends the wait for the last acks */
const SETTLE_IDLE_MS = BACKOFF.maxMs + 3000;

export const lab = labCode(meta, {
  topology,
  schema,
  reset,

  async run(ctx) {
    const name = names(ctx.names);
    const timeout = ctx.options.reconnectTimeoutMs;
    // the experiment's steps, as taught
    const steps = ctx.steps<RestartSteps>({
      target: (n) => ({ queue: n.queue, persistent: true }), // a durable quorum queue, persistent messages
      resend: (send) => send(),
      writeKey: (write) => write(),
      restart: (confirmed) => restartNode(ctx, confirmed, timeout),
    });
    const h: Hooks = {
      steps,
      emit: (source, fields) => ctx.log.emit(source, fields),
      sleep: (ms) => ctx.sleep(ms),
    };
    const opts: ReconnectOptions = {
      urls: [ctx.config.amqpUrl],
      maxWaitMs: timeout,
      backoff: BACKOFF,
      onAttempt: (url, cause) => ctx.log.emit('reconnect', { url: maskUrl(url), cause, status: 'refused' }),
    };
    /** poll `ok` every 100 ms until it holds or `ms` passed (bounded) */
    const until = async (ok: () => boolean | Promise<boolean>, ms: number) => {
      for (const end = Date.now() + ms; !(await ok()) && Date.now() < end;) await ctx.sleep(100);
    };

    const publisher = await ReconnectingPublisher.open(opts);
    const { queue, persistent } = steps.target(name);
    const produced: ProducerRecord = { ids: [], lostAtRestart: [], reconnects: 0 };
    for (let i = 1; i <= FIRST_BATCH; i++) {
      produced.ids.push(messageId(i));
      await publisher.publish('', queue, JSON.stringify({ id: messageId(i) }), { messageId: messageId(i), persistent });
    }
    const { db } = await openDb(ctx.config.pgUrl, 2);
    const consumed: ConsumerRecord = { deliveries: [], held: [], acked: new Set() };
    let holdAcks = true;
    const consumer = await consume(opts, db, name, h, () => holdAcks, consumed);
    let outage: Outage<string[]> | null;
    let producing: Promise<void> = Promise.resolve();
    try {
      await until(() => consumed.held.length >= PREFETCH, 15_000);
      await ctx.checkpoint('holding', { held: consumed.held.join(',') });
      let doneAt: number | null = null;
      producing = produce(publisher, name, h, (n) => doneAt !== null && n >= doneAt + AFTER_RECONNECT, produced);
      producing.catch(() => {});
      await until(() => publisher.ledger.confirmed().length >= FIRST_BATCH + 5, 15_000);
      holdAcks = false; // after the restart every delivery is acked; the held ones are not (they come back)
      outage = await steps.restart(() => publisher.ledger.confirmed());
      doneAt = produced.ids.length;
      await ctx.within(producing, timeout + 30_000, 'the producer to reconnect and finish');
      await ctx.checkpoint('broker-back', { reconnects: produced.reconnects, resent: produced.lostAtRestart.length });
      // every id the producer got confirmed is committed and acked by the consumer — or nothing was
      // delivered for SETTLE_IDLE_MS (the consumer's longest reconnect backoff and a margin): a lost or
      // never-returned message ends the wait by idleness, not by a fixed time the machine's speed decides
      const producedAt = Date.now();
      const lastActivity = () => Math.max(producedAt, consumed.deliveries.at(-1)?.at ?? 0);
      await until(
        () =>
          publisher.ledger.confirmed().every((id) => consumed.acked.has(id)) ||
          Date.now() - lastActivity() > SETTLE_IDLE_MS,
        60_000,
      );
    } finally {
      holdAcks = false;
      await producing.catch(() => {});
      await consumer.close();
      await publisher.close();
      await db.end({ timeout: 1 });
    }

    const rows = (
      await ctx.db`SELECT message_id, count(*)::int AS n FROM ${ctx.db(name.effects)} GROUP BY message_id`
    ).map((r) => ({ message_id: String(r.message_id), n: Number(r.n) }));
    const after = await Broker.connect(ctx.config.amqpUrl); // the run's own connection did not survive the restart
    const readyAfter = await after.depth(queue).finally(() => after.close());
    const t = tally({
      ids: produced.ids,
      rows,
      deliveries: consumed.deliveries,
      held: consumed.held,
      confirmedAtStop: outage?.result ?? [],
      goneAt: outage?.stopped.goneAt ?? Number.POSITIVE_INFINITY,
      lostAtRestart: produced.lostAtRestart,
      confirmedNow: new Set(publisher.ledger.confirmed()),
    });
    return {
      lines: [
        summaryLine('broker-restart', {
          restartMs: outage ? outage.started.readyAt - outage.stopped.stopAt : 0,
          heldRedelivered: t.heldRedelivered,
          unconfirmedAtRestart: produced.lostAtRestart.length,
          resentConfirmed: t.resentConfirmed,
          survived: t.survived,
          effectRows: t.rows,
          duplicates: t.duplicates,
          missing: t.missing.length,
        }),
      ],
      checks: [
        check('brokerPidChanged', true, outage !== null && outage.stopped.pid !== outage.started.pid),
        check('brokerRefused', 'ECONNREFUSED', outage?.stopped.refused ?? 'not stopped'),
        check('heldRedelivered', PREFETCH, t.heldRedelivered),
        checkAtLeast('unconfirmedAtRestart', 1, produced.lostAtRestart.length),
        check('unconfirmedResent', produced.lostAtRestart.length, t.resentConfirmed),
        check('survivedDelivered', outage?.result.length ?? 0, t.survived),
        check('duplicateEffects', 0, t.duplicates),
        check('missingIds', 0, t.missing.length),
        check('effectRows', produced.ids.length, t.rows),
      ],
      facts: {
        pids: outage ? [outage.stopped.pid, outage.started.pid] : null,
        stopMs: outage ? outage.stopped.goneAt - outage.stopped.stopAt : null,
        startMs: outage ? outage.started.readyAt - outage.started.startAt : null,
        firstDeliveryAfterStartMs:
          t.firstDeliveryAfter !== null && outage ? t.firstDeliveryAfter - outage.started.readyAt : null,
        published: produced.ids.length,
        confirmedAtStop: outage?.result.length ?? 0,
        lostAtRestart: produced.lostAtRestart,
        held: consumed.held,
        producerReconnects: produced.reconnects,
        consumerSubscriptions: consumer.subscriptions,
        missing: t.missing,
        readyAfter,
      },
    };
  },
});

/** stop the RabbitMQ node and start it again under both clients; `confirmed`: what the node had confirmed at its stop */
async function restartNode(
  ctx: ContextOf<typeof meta>,
  confirmed: () => string[],
  readyTimeoutMs: number,
): Promise<Outage<string[]>> {
  ctx.progress('restarting the RabbitMQ node (stop, then start) under the producer and the consumer');
  const outage = await ctx.services.outage(
    'RabbitMQ',
    async (stopped) => {
      // everything confirmed by now was confirmed by the node before its process exited
      const confirmedAtStop = confirmed();
      await ctx.checkpoint('broker-down', {
        pid: stopped.pid ?? 'docker',
        probe: stopped.refused ?? 'connected',
        confirmed: confirmedAtStop.length,
      });
      return confirmedAtStop;
    },
    { readyTimeoutMs },
  );
  ctx.progress(
    `the node accepts connections again (${outage.started.readyAt - outage.started.startAt} ms after its start)`,
  );
  return outage;
}
