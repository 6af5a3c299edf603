/**
 * ordering — ordering drift under delayed retry, and the failure class "state order conflict"
 * (version=2 arrives while the local state is older): version checks beat ordering (the sources
 * are quoted in docs/labs/ordering.md).
 *
 * The queues and routes are drawn in names.ts.
 */
import {
  type LabContext,
  type Delivery,
  check,
  checkAtLeast,
  javaList,
  deferred,
  labCode,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { applyLastWriteWins, applyVersioned, type OrderEvent, type WriteRules } from './store.js';
import { AGGREGATE, TTL_MS, names, reset, schema, topology } from './names.js';
import { lastWriteWins, lostEvents, type Outcome } from './versions.js';

/** the steps of the ordering experiment a broken variant may replace (variants.ts, TEST ONLY) */
export interface OrderingSteps {
  /** the downstream is briefly unavailable for this attempt of this event (a transient failure) */
  downstreamFails(e: OrderEvent, attempt: number): boolean;
  /** how the versioned writer writes */
  write: WriteRules;
}

const V1: OrderEvent = { eventId: `${AGGREGATE}-v1`, aggregateId: AGGREGATE, version: 1, status: 'placed' };
const V2: OrderEvent = { eventId: `${AGGREGATE}-v2`, aggregateId: AGGREGATE, version: 2, status: 'paid' };
const EVENTS = [V1, V2];
/** its first attempt meets a briefly unavailable downstream (a transient failure) */
const FAILS_ONCE = V1.eventId;

export const lab = labCode(meta, {
  topology,
  schema,
  reset,

  async run(ctx) {
    const name = names(ctx.names);
    // the consumer's steps, as taught
    const steps = ctx.steps<OrderingSteps>({
      downstreamFails: (e, attempt) => e.eventId === FAILS_ONCE && attempt === 1,
      write: { versionCheck: true, recordStale: true },
    });
    const { finished } = await consumeEvents(ctx, name, steps);
    for (const e of EVENTS) {
      await ctx.broker.sendConfirmed(name.work, JSON.stringify(e), { messageId: e.eventId, headers: { attempt: 1 } });
      ctx.log.emit('producer', {
        messageId: e.eventId,
        version: e.version,
        destination: name.work,
        attempt: 1,
        status: 'confirmed',
      });
    }
    const { commitOrder, attemptsAt } = await finished;

    const { db } = ctx;
    const [[state], [naive], stale, applied, depths] = await Promise.all([
      db<
        { version: number; event_id: string; status: string }[]
      >`SELECT version, event_id, status FROM ${db(name.state)} WHERE aggregate_id = ${AGGREGATE}`,
      db<
        { version: number; status: string }[]
      >`SELECT version, status FROM ${db(name.naive)} WHERE aggregate_id = ${AGGREGATE}`,
      db<
        { event_id: string; incoming_version: number; stored_version: number }[]
      >`SELECT event_id, incoming_version, stored_version FROM ${db(name.stale)} WHERE aggregate_id = ${AGGREGATE} ORDER BY recorded_at`,
      db<
        { event_id: string }[]
      >`SELECT event_id FROM ${db(name.applied)} WHERE aggregate_id = ${AGGREGATE} ORDER BY applied_at`,
      Promise.all([ctx.broker.depth(name.work), ctx.broker.depth(name.delay)]),
    ]);

    const processingOrder = commitOrder.map((c) => c.version);
    const storedVersion = state ? Number(state.version) : null;
    const naiveFinalVersion = naive ? Number(naive.version) : null;
    const lost = lostEvents(
      EVENTS.map((e) => e.eventId),
      applied.map((r) => r.event_id),
      stale.map((r) => r.event_id),
    );
    const staleRows = stale.map((r) => `${r.event_id} incoming=${r.incoming_version} stored=${r.stored_version}`);
    const v1At = attemptsAt.get(FAILS_ONCE) ?? [];
    const [v1First, v1Second, ...v1More] = v1At;
    const retryGapMs = v1First && v1Second && v1More.length === 0 ? Math.round(v1Second.at - v1First.at) : 0;

    return {
      lines: [
        `ordering: aggregate=${AGGREGATE} processingOrder=${javaList(processingOrder)} storedVersion=${storedVersion} ` +
          `staleEvents=${stale.length} lostEvents=${lost.length} naiveFinalVersion=${naiveFinalVersion}`,
      ],
      checks: [
        check('processingOrder', [2, 1], processingOrder),
        check(
          'v1Attempts',
          [1, 2],
          v1At.map((a) => a.attempt),
        ),
        checkAtLeast('retryGapMs', TTL_MS, retryGapMs),
        check('storedVersion', 2, storedVersion),
        check('staleEvents', 1, stale.length),
        check('staleEvent', [`${FAILS_ONCE} incoming=1 stored=2`], staleRows),
        check('lostEvents', 0, lost.length),
        check('naiveFinalVersion', 1, naiveFinalVersion),
        check('queueDepthAfter', 0, depths[0] + depths[1]),
      ],
      facts: {
        commitOrder,
        storedState: state ? { version: storedVersion, eventId: state.event_id, status: state.status } : null,
        naiveState: naive ? { version: naiveFinalVersion, status: naive.status } : null,
        naiveFinalVersionFromOrder: lastWriteWins(processingOrder),
        appliedEvents: applied.map((r) => r.event_id),
        staleEvents: stale.map((r) => ({
          eventId: r.event_id,
          incomingVersion: r.incoming_version,
          storedVersion: r.stored_version,
        })),
        lostEventIds: lost,
        retryGapMs,
        queueDepthAfter: { [name.work]: depths[0], [name.delay]: depths[1] },
      },
    };
  },
});

interface Consumed {
  /** versions in the order their transactions committed */
  commitOrder: { eventId: string; version: number; outcome: Outcome }[];
  /** each delivery's attempt header and arrival time, per event */
  attemptsAt: Map<string, { attempt: number; at: number }[]>;
}

/** start the consumer; `finished` settles once every event has committed an outcome (applied or stale) */
async function consumeEvents(
  ctx: LabContext,
  name: ReturnType<typeof names>,
  steps: OrderingSteps,
): Promise<{ finished: Promise<Consumed> }> {
  const { broker, db, log } = ctx;
  const out: Consumed = { commitOrder: [], attemptsAt: new Map() };
  const done = deferred();
  const consumer = await broker.consume(
    name.work,
    async (m: Delivery) => {
      const e = JSON.parse(m.body) as OrderEvent;
      const attempt = Number(m.headers.attempt);
      const seen = out.attemptsAt.get(e.eventId) ?? [];
      out.attemptsAt.set(e.eventId, [...seen, { attempt, at: ctx.now() }]);
      log.emit('consumer', { messageId: e.eventId, version: e.version, attempt, status: 'received' });
      if (steps.downstreamFails(e, attempt)) {
        // transient failure: the copy is safe in the delay queue before the original is acked
        await broker.sendConfirmed(name.delay, m.body, { messageId: e.eventId, headers: { attempt: attempt + 1 } });
        m.ack();
        log.emit('consumer', {
          messageId: e.eventId,
          version: e.version,
          attempt,
          destination: name.delay,
          status: 'transient_failure_retry_confirmed',
        });
        return;
      }
      const r = await db.begin(async (sql) => {
        const versioned = await applyVersioned(sql, name, e, steps.write);
        await applyLastWriteWins(sql, name, e);
        return versioned;
      });
      out.commitOrder.push({ eventId: e.eventId, version: e.version, outcome: r.outcome });
      m.ack();
      log.emit('consumer', {
        messageId: e.eventId,
        version: e.version,
        attempt,
        storedVersion: r.storedVersion,
        status: r.outcome,
      });
      await ctx.checkpoint(r.outcome === 'stale' ? 'stale-recorded' : 'version-applied', {
        messageId: e.eventId,
        version: e.version,
        storedVersion: r.storedVersion,
      });
      if (EVENTS.every((ev) => out.commitOrder.some((c) => c.eventId === ev.eventId && c.outcome !== 'duplicate')))
        done.resolve();
    },
    { prefetch: 10 },
  );
  const finished = (async () => {
    await ctx.within(
      Promise.race([done.promise, consumer.failure]),
      10_000,
      `both ${AGGREGATE} events to commit (v1 after its ${TTL_MS} ms delay)`,
    );
    await consumer.cancel();
    return out;
  })();
  finished.catch(() => {}); // awaited by run(); this only keeps an early failure from counting as unhandled
  return { finished };
}
