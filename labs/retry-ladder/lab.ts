/**
 * retry-ladder — seed 003 §3.3–3.4 (a TTL retry ladder with tiers, the attempt in the
 * application's own header) and seed 000 (backoff min(maxDelay, d × 2^(attempt-1)); the deadline
 * and the count limit retries together, and the deadline wins).
 *
 * Three messages: `recovers` fails twice and succeeds on attempt 3 (a business row); `exhausted`
 * always fails, climbs every tier and is rejected into the DLQ on the last attempt; `parked`
 * always fails and carries a short deadline: when the time left no longer covers the next wait
 * plus one call it is parked, with the reason in a header, before its attempts run out.
 * Topology drawing: topology.ts and docs/labs/retry-ladder.md.
 */
import { randomUUID } from 'node:crypto';
import type { Lab, LabContext } from '../../src/lab.js';
import type { Delivery } from '../../src/broker/broker.js';
import { deadLetterHistory } from '../../src/broker/xdeath.js';
import { deferred } from '../../src/time.js';
import { Interrupted } from '../../src/errors.js';
import { afterFailure, onArrival, ladderFloorMs, retryDelays, tiers, type Backoff } from './backoff.js';
import { PARKED_KEY, WORK_KEY, names, reset, schema, tierKey, topology } from './names.js';
import { ladderChecks, ladderFacts, ladderLine, type Observed } from './report.js';
import { EVENTS, callSucceeds, deadlineInMs, isEvent, type EventId, type Trail } from './scenario.js';

export const lab: Lab<Backoff> = {
  topology,
  schema,
  reset,

  async run(ctx) {
    const b = ctx.options;
    const x = names(ctx.names);
    const { broker, db, log } = ctx;
    const runId = randomUUID().slice(0, 8);
    const trails = Object.fromEntries(EVENTS.map((id) => [id, { attempts: [], at: [], route: [], decisions: [] } as Trail])) as Record<EventId, Trail>;
    const dlqHeld: Delivery[] = [];
    const parkingHeld: Delivery[] = [];
    let stale = 0;
    const settled = deferred();
    const maybeSettled = () => {
      const decided = EVENTS.every((id) => trails[id].outcome);
      if (decided && dlqHeld.some((d) => d.messageId === 'exhausted') && parkingHeld.some((d) => d.messageId === 'parked')) settled.resolve();
    };

    const park = async (m: Delivery, id: EventId, attempt: number, stage: string, remainingMs: number, neededMs: number) => {
      const headers = { ...ownHeaders(m), 'parked-reason': 'deadline', 'parked-stage': stage, 'parked-after-attempt': attempt, 'parked-detail': `remainingMs=${remainingMs} neededMs=${neededMs}` };
      await broker.publishConfirmed(x.dead, PARKED_KEY, m.body, { messageId: id, headers });
      m.ack();
      trails[id].outcome = 'parking';
      log.emit('consumer', { messageId: id, attempt, remainingMs, neededMs, destination: x.parking, status: 'parked' });
    };

    const handle = async (m: Delivery) => {
      const id = m.messageId;
      if (m.headers.run !== runId || !isEvent(id)) {
        m.ack(); // a leftover of another run (another option set's delay queue): not ours to count
        stale += 1;
        log.emit('consumer', { messageId: id, status: 'stale_discarded' });
        return;
      }
      const attempt = Number(m.headers.attempt);
      const deadline = Number(m.headers['deadline-at']);
      const t = trails[id];
      t.attempts.push(attempt);
      t.at.push(ctx.now());
      log.emit('consumer', { messageId: id, attempt, remainingMs: deadline - Date.now(), status: 'received' });
      const arrival = onArrival(Date.now(), deadline, b);
      if (arrival.action === 'park') {
        t.decisions.push('park-on-arrival');
        return park(m, id, attempt, 'on-arrival', arrival.remainingMs, arrival.neededMs);
      }
      if (callSucceeds(id, attempt)) {
        await db`INSERT INTO ${db(x.effect)} (event_id, attempt) VALUES (${id}, ${attempt}) ON CONFLICT DO NOTHING`;
        m.ack();
        t.decisions.push('committed');
        t.outcome = 'business';
        log.emit('consumer', { messageId: id, attempt, status: 'business_committed' });
        return;
      }
      const d = afterFailure(attempt, Date.now(), deadline, b);
      t.decisions.push(d.action);
      if (d.action === 'retry') {
        // the copy (attempt+1, same deadline) must be safe in its tier before the delivery is settled
        await broker.publishConfirmed(x.retry, tierKey(d.delayMs), m.body, { messageId: id, headers: { ...ownHeaders(m), attempt: d.nextAttempt } });
        m.ack();
        t.route.push(x.delay(d.delayMs));
        log.emit('consumer', { messageId: id, attempt, delayMs: d.delayMs, destination: x.delay(d.delayMs), status: 'retry_confirmed' });
      } else if (d.action === 'exhausted') {
        m.reject(false); // the work queue's dead-letter exchange routes it to the DLQ
        t.outcome = 'dlq';
        log.emit('consumer', { messageId: id, attempt, status: 'rejected_to_dlx' });
      } else {
        await park(m, id, attempt, 'before-retry', d.remainingMs, d.neededMs);
      }
    };

    const work = await broker.consume(x.work, async (m) => (await handle(m), maybeSettled()), { prefetch: 10 });
    // the terminal queues are watched, and their messages held unacked until counted, then put back
    const term = await broker.newChannel();
    const hold = (into: Delivery[]) => (m: Delivery) => (into.push(m), maybeSettled());
    await term.prefetch(10);
    const [dlqWatch, parkingWatch] = await Promise.all([
      broker.consume(x.dlq, hold(dlqHeld), { channel: term }),
      broker.consume(x.parking, hold(parkingHeld), { channel: term }),
    ]);

    ctx.progress(`tiers ${tiers(b).join('/')} ms, up to ${b.maxAttempts} attempts: about ${ladderFloorMs(b)} ms of waits`);
    await Promise.all(
      EVENTS.map(async (id) => {
        const headers = { run: runId, attempt: 1, 'deadline-at': Date.now() + deadlineInMs(id, b) };
        await broker.publishConfirmed(x.business, WORK_KEY, JSON.stringify({ eventId: id }), { messageId: id, headers });
        log.emit('producer', { messageId: id, destination: x.work, attempt: 1, deadlineInMs: deadlineInMs(id, b), status: 'confirmed' });
      }),
    );

    // the delay queues' TTLs as the broker declared them, read while the ladder runs
    const ttls = tierTtls(ctx, tiers(b).map(x.delay));
    ttls.catch(() => {});

    // a message that never settles is a finding, not a crash: after the limit, report what is there
    const limitMs = ladderFloorMs(b) + 5_000;
    const what = 'every message to reach the business table, the DLQ or the parking queue';
    const timedOut = await Promise.race([
      ctx.within(settled.promise, limitMs, what).then(
        () => false,
        (e) => (e instanceof Interrupted ? Promise.reject(e) : true),
      ),
      work.failure,
      dlqWatch.failure,
      parkingWatch.failure,
    ]);
    if (timedOut) ctx.progress(`not every message settled within ${limitMs} ms; reporting what the broker and the database show`);
    await Promise.all([work.cancel(), dlqWatch.cancel(), parkingWatch.cancel()]);
    const observed = await observe(ctx, b, trails, await ttls, dlqHeld, parkingHeld, { stale, timedOut });
    // leave the DLQ and parking messages where an operator would find them (the next run purges them)
    for (const m of [...dlqHeld, ...parkingHeld]) m.nack(true);
    [observed.dlqDepth, observed.parkingDepth] = await Promise.all([
      readyDepthWhen(ctx, x.dlq, dlqHeld.length + observed.dlqReady),
      readyDepthWhen(ctx, x.parking, parkingHeld.length + observed.parkingReady),
    ]);
    await term.close().catch(() => {});
    await ctx.checkpoint('settled', { dlq: observed.dlqDepth, parking: observed.parkingDepth });
    return { lines: [ladderLine(observed)], checks: ladderChecks(observed), facts: ladderFacts(observed) };
  },
};

/**
 * The application's own headers, the only ones a copy carries forward: the broker's x-death stays
 * behind (4.x ignores a republished one anyway), so the ladder works the same on 3.10 and 4.x.
 */
const ownHeaders = (m: Delivery) => pick(m.headers, ['run', 'attempt', 'deadline-at']);

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
  const x = names(ctx.names);
  const { broker, db } = ctx;
  const inFlightQueues = [x.work, ...tiers(b).map(x.delay)];
  const depthOf = async (q: string) => [q, await broker.depth(q)] as const;
  const depths = Object.fromEntries(await Promise.all([...inFlightQueues, x.dlq, x.parking].map(depthOf)));
  const rows = await db`SELECT event_id, attempt FROM ${db(x.effect)} ORDER BY event_id`;
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
    dlqReady: depths[x.dlq],
    parkingReady: depths[x.parking],
    inFlight: inFlightQueues.reduce((sum, q) => sum + depths[q], 0),
    parkedReason: parkedMsg ? String(parkedMsg.headers['parked-reason'] ?? 'none') : 'none',
    dlqDepth: NaN,
    parkingDepth: NaN,
    dlqDeath: deadLetterHistory(dlqMsg?.headers).find((e) => e.queue === x.work && e.reason === 'rejected') ?? null,
    facts: {
      options: b,
      floorMs: ladderFloorMs(b),
      tiersMs: tiers(b),
      depthsWhileHeld: depths,
      settledInTime: !run.timedOut,
      staleDiscarded: run.stale,
      parkedHeaders: parkedMsg ? pick(parkedMsg.headers, ['parked-reason', 'parked-stage', 'parked-after-attempt', 'parked-detail']) : null,
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
