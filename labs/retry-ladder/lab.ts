/**
 * retry-ladder — a TTL retry ladder with tiers, the attempt in the application's own header, and
 * backoff min(maxDelay, d × 2^(attempt-1)); the deadline and the count limit retries together, and
 * the deadline wins (the sources are quoted in docs/labs/retry-ladder.md).
 *
 * Three messages: `recovers` fails twice and succeeds on attempt 3 (a business row); `exhausted`
 * always fails, climbs every tier and is rejected into the DLQ on the last attempt; `parked`
 * always fails and carries a short deadline: when the time left no longer covers the next wait
 * plus one call it is parked, with the reason in a header, before its attempts run out.
 * Topology drawing: topology.ts and docs/labs/retry-ladder.md.
 */
import { randomUUID } from 'node:crypto';
import {
  type LabContext,
  closeChannel,
  type Delivery,
  deadLetterHistory,
  deferred,
  settledOrIdle,
  must,
  text,
  labCode,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { afterFailure, onArrival, ladderFloorMs, retryDelays, tiers, type Backoff, type Decision } from './backoff.js';
import { PARKED_KEY, WORK_KEY, names, reset, schema, tierKey, topology } from './names.js';
import { ladderChecks, ladderFacts, ladderLine, type Observed } from './verdicts.js';
import { EVENTS, callSucceeds, deadlineInMs, isEvent, type EventId, type Trail } from './scenario.js';

/** the steps of the ladder a broken variant may replace (variants.ts, TEST ONLY) */
export interface LadderSteps {
  /** the deadline a delivery carries (its deadline-at header) */
  deadlineOf(m: Delivery): number;
  /** the downstream call: does it succeed (nothing is written until its outcome is known) */
  call(id: EventId, attempt: number): boolean | Promise<boolean>;
  /** the decision after a failed call, as backoff.ts makes it */
  decide(d: Decision, id: EventId): Decision;
  /** the attempt a retry copy carries */
  nextAttempt(d: Decision & { action: 'retry' }): number;
  /** where a retry copy is published: the retry exchange, with its tier's key */
  retryRoute(tierKey: string): [exchange: string, key: string];
  /** the last attempt failed: rejected, so the broker dead-letters it into the DLQ (with x-death) */
  exhaust(m: Delivery, headers: Record<string, unknown>): void | Promise<void>;
  /** the parked copy, published into the parking route */
  publishParked(publish: () => Promise<unknown>): Promise<void>;
}

export const lab = labCode(meta, {
  topology,
  schema,
  reset,

  async run(ctx) {
    const b = ctx.options;
    const name = names(ctx.names);
    const { broker, db, log } = ctx;
    const runId = randomUUID().slice(0, 8);
    const trails = Object.fromEntries(
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- without it the arrays are never[]
      EVENTS.map((id) => [id, { attempts: [], at: [], expiredFrom: [], route: [], decisions: [] } as Trail]),
    ) as Record<EventId, Trail>;
    const dlqHeld: Delivery[] = [];
    const parkingHeld: Delivery[] = [];
    let stale = 0;
    const settled = deferred();
    let lastActivity = ctx.now();
    const maybeSettled = () => {
      lastActivity = ctx.now();
      const decided = EVENTS.every((id) => trails[id].outcome);
      // every message that went to the DLQ or the parking queue is held from there
      const held = (place: 'dlq' | 'parking') => EVENTS.filter((id) => trails[id].outcome === place).length;
      if (decided && dlqHeld.length >= held('dlq') && parkingHeld.length >= held('parking')) settled.resolve();
    };

    const park = async (
      m: Delivery,
      id: EventId,
      attempt: number,
      stage: string,
      remainingMs: number,
      neededMs: number,
    ) => {
      const headers = {
        ...ownHeaders(m),
        'parked-reason': 'deadline',
        'parked-stage': stage,
        'parked-after-attempt': attempt,
        'parked-decided-at': Number(m.headers['due-at']),
        'parked-detail': `remainingMs=${remainingMs} neededMs=${neededMs}`,
      };
      await steps.publishParked(() =>
        broker.publishConfirmed(name.dead, PARKED_KEY, m.body, { messageId: id, headers }),
      );
      m.ack();
      trails[id].outcome = 'parking';
      log.emit('consumer', {
        messageId: id,
        attempt,
        remainingMs,
        neededMs,
        destination: name.parking,
        status: 'parked',
      });
    };

    const commit = (id: EventId, attempt: number) =>
      db`INSERT INTO ${db(name.effect)} (event_id, attempt) VALUES (${id}, ${attempt}) ON CONFLICT DO NOTHING`;
    // the consumer's steps, as taught
    const steps = ctx.steps<LadderSteps>({
      deadlineOf: (m) => Number(m.headers['deadline-at']),
      call: callSucceeds,
      decide: (d) => d,
      nextAttempt: (d) => d.nextAttempt,
      retryRoute: (key) => [name.retry, key],
      exhaust: (m) => m.reject(false),
      publishParked: async (publish) => void (await publish()),
    });

    const handle = async (m: Delivery) => {
      const id = m.messageId;
      if (m.headers.run !== runId || !isEvent(id)) {
        m.ack(); // a leftover of another run (another option set's delay queue): not ours to count
        stale += 1;
        log.emit('consumer', { messageId: id, status: 'stale_discarded' });
        return;
      }
      const attempt = Number(m.headers.attempt);
      const deadline = steps.deadlineOf(m);
      // the decisions run on the stamped timeline: a copy counts as arrived when it was due (its
      // publisher's stamp + the wait it was sent to), so a slow broker or process never changes one
      const dueAt = Number(m.headers['due-at']);
      const t = trails[id];
      t.attempts.push(attempt);
      t.at.push(ctx.now());
      t.expiredFrom.push(deadLetterHistory(m.headers).find((e) => e.reason === 'expired')?.queue ?? null);
      log.emit('consumer', {
        messageId: id,
        attempt,
        remainingMs: deadline - dueAt,
        lateMs: Date.now() - dueAt,
        status: 'received',
      });
      const arrival = onArrival(dueAt, deadline, b);
      if (arrival.action === 'park') {
        t.decisions.push('park-on-arrival');
        return park(m, id, attempt, 'on-arrival', arrival.remainingMs, arrival.neededMs);
      }
      if (await steps.call(id, attempt)) {
        await commit(id, attempt);
        m.ack();
        t.decisions.push('committed');
        t.outcome = 'business';
        log.emit('consumer', { messageId: id, attempt, status: 'business_committed' });
        return;
      }
      const d = steps.decide(afterFailure(attempt, dueAt, deadline, b), id);
      t.decisions.push(d.action);
      if (d.action === 'retry') {
        // the copy (attempt+1, same deadline) must be safe in its tier before the delivery is settled;
        // it is due back once its tier's TTL has passed from the moment it is stamped here
        const headers = {
          ...ownHeaders(m),
          attempt: steps.nextAttempt(d),
          'due-at': Date.now() + d.delayMs,
        };
        const [exchange, key] = steps.retryRoute(tierKey(d.delayMs));
        await broker.publishConfirmed(exchange, key, m.body, { messageId: id, headers });
        m.ack();
        t.route.push(name.delay(d.delayMs));
        log.emit('consumer', {
          messageId: id,
          attempt,
          delayMs: d.delayMs,
          destination: name.delay(d.delayMs),
          status: 'retry_confirmed',
        });
      } else if (d.action === 'exhausted') {
        // the work queue's dead-letter exchange routes it to the DLQ
        await steps.exhaust(m, ownHeaders(m));
        t.outcome = 'dlq';
        log.emit('consumer', { messageId: id, attempt, status: 'rejected_to_dlx' });
      } else {
        await park(m, id, attempt, 'before-retry', d.remainingMs, d.neededMs);
      }
    };

    const work = await broker.consume(name.work, async (m) => (await handle(m), maybeSettled()), { prefetch: 10 });
    // the terminal queues are watched, and their messages held unacked until counted, then put back
    const term = await broker.newChannel();
    const hold = (into: Delivery[]) => (m: Delivery) => (into.push(m), maybeSettled());
    await term.prefetch(10);
    const [dlqWatch, parkingWatch] = await Promise.all([
      broker.consume(name.dlq, hold(dlqHeld), { channel: term }),
      broker.consume(name.parking, hold(parkingHeld), { channel: term }),
    ]);

    ctx.progress(
      `tiers ${tiers(b).join('/')} ms, up to ${b.maxAttempts} attempts: about ${ladderFloorMs(b)} ms of waits`,
    );
    await Promise.all(
      EVENTS.map(async (id) => {
        const publishedAt = Date.now(); // the publisher's stamp: the deadline and the first due time count from it
        const headers = {
          run: runId,
          attempt: 1,
          'due-at': publishedAt,
          'deadline-at': publishedAt + deadlineInMs(id, b),
        };
        await broker.publishConfirmed(name.business, WORK_KEY, JSON.stringify({ eventId: id }), {
          messageId: id,
          headers,
        });
        log.emit('producer', {
          messageId: id,
          destination: name.work,
          attempt: 1,
          deadlineInMs: deadlineInMs(id, b),
          status: 'confirmed',
        });
      }),
    );

    // the delay queues' TTLs as the broker declared them, read while the ladder runs
    const ttls = tierTtls(ctx, tiers(b).map(name.delay));
    ttls.catch(() => {});

    // a message that never settles is a finding, not a crash: once nothing has moved for the longest
    // wait plus a call plus 30 s, report what is there (a busy machine makes deliveries seconds late)
    const idleMs = b.maxDelayMs + b.callBudgetMs + 30_000;
    const timedOut = await Promise.race([
      settledOrIdle(settled.promise, () => lastActivity, idleMs, ctx),
      work.failure,
      dlqWatch.failure,
      parkingWatch.failure,
    ]);
    if (timedOut)
      ctx.progress(
        `nothing moved for ${idleMs} ms before every message settled; reporting what the broker and the database show`,
      );
    await Promise.all([work.cancel(), dlqWatch.cancel(), parkingWatch.cancel()]);
    const observed = await observe(ctx, b, trails, await ttls, dlqHeld, parkingHeld, { stale, timedOut });
    // leave the DLQ and parking messages where an operator would find them (the next run purges them)
    for (const m of [...dlqHeld, ...parkingHeld]) m.nack(true);
    [observed.dlqDepth, observed.parkingDepth] = await Promise.all([
      readyDepthWhen(ctx, name.dlq, dlqHeld.length + observed.dlqReady),
      readyDepthWhen(ctx, name.parking, parkingHeld.length + observed.parkingReady),
    ]);
    await closeChannel(term);
    await ctx.checkpoint('settled', { dlq: observed.dlqDepth, parking: observed.parkingDepth });
    return { lines: [ladderLine(observed)], checks: ladderChecks(observed), facts: ladderFacts(observed) };
  },
});

/**
 * The application's own headers, the only ones a copy carries forward: the broker's x-death stays
 * behind (4.x ignores a republished one anyway), so the ladder works the same on 3.10 and 4.x.
 */
const ownHeaders = (m: Delivery) => pick(m.headers, ['run', 'attempt', 'deadline-at', 'due-at']);

/** what the broker and the database show once every message has settled */
async function observe(
  ctx: LabContext,
  b: Backoff,
  trails: Record<EventId, Trail>,
  ttlOf: Record<string, number>,
  dlq: Delivery[],
  parking: Delivery[],
  run: { stale: number; timedOut: boolean },
): Promise<Observed> {
  const name = names(ctx.names);
  const { broker, db } = ctx;
  const inFlightQueues = [name.work, ...tiers(b).map(name.delay)];
  const depthOf = async (q: string) => [q, await broker.depth(q)] as const;
  const sampled = Object.fromEntries(await Promise.all([...inFlightQueues, name.dlq, name.parking].map(depthOf)));
  const depthIn = (q: string) => must(sampled[q], `the depth of ${q}`);
  const rows = await db`SELECT event_id, attempt FROM ${db(name.effect)} ORDER BY event_id`;
  const parkedMsg = parking.find((m) => m.messageId === 'parked');
  const dlqMsg = dlq.find((m) => m.messageId === 'exhausted');
  return {
    b,
    expectedDelays: retryDelays(b),
    trails,
    ttlOf,
    rows: rows.map((r) => ({ eventId: String(r.event_id), attempt: Number(r.attempt) })),
    dlqIds: dlq.map((m) => m.messageId ?? ''),
    parkingIds: parking.map((m) => m.messageId ?? ''),
    dlqReady: depthIn(name.dlq),
    parkingReady: depthIn(name.parking),
    inFlight: inFlightQueues.reduce((sum, q) => sum + depthIn(q), 0),
    parkedReason: parkedMsg ? text(parkedMsg.headers['parked-reason'], 'none') : 'none',
    parked: parkedMsg
      ? {
          attempt: Number(parkedMsg.headers.attempt),
          deadlineAt: Number(parkedMsg.headers['deadline-at']),
          decidedAt: Number(parkedMsg.headers['parked-decided-at']),
        }
      : null,
    dlqDepth: NaN,
    parkingDepth: NaN,
    dlqDeath: deadLetterHistory(dlqMsg?.headers).find((e) => e.queue === name.work && e.reason === 'rejected') ?? null,
    facts: {
      options: b,
      floorMs: ladderFloorMs(b),
      tiersMs: tiers(b),
      depthsWhileHeld: sampled,
      settledInTime: !run.timedOut,
      staleDiscarded: run.stale,
      parkedHeaders: parkedMsg
        ? pick(parkedMsg.headers, ['parked-reason', 'parked-stage', 'parked-after-attempt', 'parked-detail'])
        : null,
      dlqDeathHistory: deadLetterHistory(dlqMsg?.headers),
    },
  };
}

/** x-message-ttl of each delay queue, from the management API (NaN when the queue or argument is missing) */
async function tierTtls(ctx: LabContext, queues: string[]): Promise<Record<string, number>> {
  const ttl = async (q: string) => [q, Number((await ctx.mgmt.queue(q))?.arguments['x-message-ttl'] ?? NaN)] as const;
  return Object.fromEntries(await Promise.all(queues.map(ttl)));
}

/** put-back messages reach the queue asynchronously: sample its ready depth until it shows `want` (bounded) */
async function readyDepthWhen(ctx: LabContext, queue: string, want: number, ms = 2000): Promise<number> {
  const end = ctx.now() + ms;
  let n = await ctx.broker.depth(queue);
  while (n !== want && ctx.now() < end) {
    await ctx.sleep(5);
    n = await ctx.broker.depth(queue);
  }
  return n;
}

const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));
