/**
 * retry-loop-limit — a TTL retry loop wears down the delivery limit (4.3+), and the cycle rule.
 *
 *   looped: work ─reject(false)─▶ dlx ─▶ wait (TTL 50 ms) ─expired─▶ back ─▶ work   × LOOPS (4)
 *           then reject(requeue=true): 4.3 dead-letters it at once (delivery_limit, count 5 > limit 2);
 *           4.0–4.2 and 3.10 after limit + 1 (the limit reads a count the loop did not carry);
 *           its way into wait closes a fully automatic cycle (no client reject since it left wait): dropped (4.x)
 *   nacked: the same laps, then nack(requeue=true), which does not raise the count on 4.3: dead-lettered
 *           at once all the same, as the carried count is already past the limit
 *   fresh:  work ─reject(requeue=true) × 3─▶ delivery_limit ─▶ wait ─expired─▶ back ─▶ work: the second
 *           arrival in work closes a fully automatic cycle: dropped on its way back
 *
 * Every dead letter of work is kept by the trail queue, every letter that left wait by the expired-trail.
 */
import {
  type LabContext,
  check,
  summaryLine,
  closeChannel,
  type Delivery,
  type Count,
  deferred,
  readCount,
  labCode,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { LIMIT, LOOPS, MAX_REQUEUES, WAIT_TTL_MS, names, topology, type LoopNames } from './names.js';
import { limitedIn, watchTrail, type Trail } from './trails.js';

/** the step a broken variant may replace (variants.ts, TEST ONLY) */
export interface LoopSteps {
  /** the x-delivery-count header as the broker sent it: absent stays absent */
  readCount(v: unknown): Count;
}

/** how long a letter may take to come back from the wait queue before "it did not": its TTL and a margin for a loaded machine */
const BACK_WINDOW_MS = WAIT_TTL_MS + 1500;

export const lab = labCode(meta, {
  topology,
  async run(ctx) {
    const name = names(ctx.names);
    const steps = ctx.steps<LoopSteps>({ readCount });
    const trail = await watchTrail(ctx, name.trail, name.work);
    const expired = await watchTrail(ctx, name.expiredTrail, name.work);
    const work = new WorkConsumer(ctx, name);
    try {
      await work.start();
      const [looped, nacked, fresh] = await Promise.all([
        loopedRun(ctx, name, work, trail, 'looped', (m) => m.reject(true), steps),
        loopedRun(ctx, name, work, trail, 'nacked', (m) => m.nack(true), steps),
        freshRun(ctx, name, work, trail, expired),
      ]);
      // 4.3 (measured: the probe's nack did not raise the count) compares the delivery count, which the
      // copy carried round the loop; 4.0–4.2 compare the acquired count and 3.10 every return, which
      // start again in each queue: limit + 1 returns, a nack's included
      const carriedCountIsLimits = ctx.caps.deliveryLimitCounter === 'delivery-count';
      const counts = {
        looped: ctx.caps.deadLetteredCopyCarriesDeliveryCount
          ? ['absent', ...Array.from({ length: LOOPS }, (_, i) => i + 1)]
          : Array(LOOPS + 1).fill('absent'),
      };
      return {
        lines: [
          summaryLine('retry-loop-limit', {
            loopDeliveryCounts: `[${looped.counts.join(', ')}]`,
            requeuesUntilDeadLetter: looped.requeues,
            nacksUntilDeadLetter: nacked.requeues,
            deadLetter: looped.reason,
            cycleAfterLimit: `'${looped.outcome}'`,
            freshLimitCycle: `'${fresh.outcome}'`,
          }),
        ],
        checks: [
          check('loopDeliveryCounts', counts.looped, looped.counts),
          check(
            'requeuesUntilDeadLetter',
            carriedCountIsLimits ? 1 : LIMIT + 1,
            looped.reason === 'none' ? 'not dead-lettered' : looped.requeues,
          ),
          check(
            'nacksUntilDeadLetter',
            carriedCountIsLimits ? 1 : LIMIT + 1,
            nacked.reason === 'none' ? 'not dead-lettered' : nacked.requeues,
          ),
          check('deadLetterReason', 'delivery_limit', looped.reason),
          check(
            'cycleAfterLimit',
            ctx.caps.deadLetterCycleByRecency ? 'dropped on its way into the wait queue' : 'back in work',
            looped.outcome,
          ),
          check('freshLimitCycle', 'dropped on its second arrival in work', fresh.outcome),
        ],
        facts: {
          limit: LIMIT,
          loops: LOOPS,
          waitTtlMs: WAIT_TTL_MS,
          backWindowMs: BACK_WINDOW_MS,
          deliveryLimitCounter: ctx.caps.deliveryLimitCounter,
          looped: { ...looped, trail: trail.reasons('looped'), leftWait: expired.reasons('looped') },
          nacked: { ...nacked, trail: trail.reasons('nacked'), leftWait: expired.reasons('nacked') },
          fresh: { ...fresh, trail: trail.reasons('fresh'), leftWait: expired.reasons('fresh') },
        },
      };
    } finally {
      await work.stop();
      await trail.close();
      await expired.close();
    }
  },
});

/**
 * One push consumer on work for both messages: each message's own handler decides (reject,
 * requeue or ack) from its arrival number and headers.
 */
class WorkConsumer {
  private handlers = new Map<string, (m: Delivery) => void>();
  private channel?: Awaited<ReturnType<LabContext['broker']['newChannel']>>;
  private consumer?: { cancel(): Promise<void> };
  constructor(
    private ctx: LabContext,
    private name: LoopNames,
  ) {}
  on(id: string, handler: (m: Delivery) => void) {
    this.handlers.set(id, handler);
  }
  async start() {
    this.channel = await this.ctx.broker.newChannel();
    this.consumer = await this.ctx.broker.consume(
      this.name.work,
      (m) => (this.handlers.get(String(m.messageId)) ?? ((o: Delivery) => o.ack()))(m),
      { prefetch: 10, channel: this.channel },
    );
  }
  async stop() {
    await this.consumer?.cancel();
    if (this.channel) await closeChannel(this.channel);
  }
}

/** resolves with `fallback` after ms unless p settles first */
const orAfter = <T>(ctx: LabContext, p: Promise<T>, ms: number, fallback: T): Promise<T> =>
  Promise.race([p, ctx.sleep(ms).then(() => fallback)]);

/** LOOPS laps through the wait queue, then `requeue` (reject or nack with requeue=true) until the broker dead-letters it */
async function loopedRun(
  ctx: LabContext,
  name: LoopNames,
  work: WorkConsumer,
  trail: Trail,
  id: string,
  requeue: (m: Delivery) => void,
  steps: LoopSteps,
) {
  const read = (v: unknown) => steps.readCount(v);
  const counts: Count[] = [];
  /** x-delivery-count of each requeued delivery after the laps (4.0–4.2 show the acquired count: 1, 2 …) */
  const requeueCounts: Count[] = [];
  let arrivals = 0;
  let requeues = 0;
  const back = deferred<string>();
  work.on(id, (m) => {
    arrivals += 1;
    if (limitedIn(m.headers, name.work)) {
      // after its limit: it came round again
      m.ack();
      back.resolve('back in work');
      return;
    }
    if (arrivals <= LOOPS + 1) counts.push(read(m.headers['x-delivery-count']));
    else requeueCounts.push(read(m.headers['x-delivery-count']));
    ctx.log.emit('work', {
      messageId: id,
      arrival: arrivals,
      deliveryCount: String(read(m.headers['x-delivery-count'])),
      status: 'received',
    });
    if (arrivals <= LOOPS) return m.reject(false);
    if (requeues >= MAX_REQUEUES) {
      m.ack();
      back.resolve('never dead-lettered');
      return;
    }
    requeues += 1;
    requeue(m);
  });
  await ctx.broker.sendConfirmed(name.work, id, { messageId: id });
  const first = await ctx.within(
    Promise.race([
      trail.afterLimit(id).then((r) => ({ reason: r })),
      back.promise.then((b) => ({ reason: 'none', b })),
    ]),
    30_000,
    `the ${id} message dead-lettered or given up on ${name.work}`,
  );
  if (first.reason === 'none') return { counts, requeues, requeueCounts, reason: 'none', outcome: 'no dead letter' };
  const outcome = await orAfter(ctx, back.promise, BACK_WINDOW_MS, 'dropped on its way into the wait queue');
  return { counts, requeues, requeueCounts, reason: first.reason, outcome };
}

/** a message never rejected: reject(requeue=true) until delivery_limit, then through the wait queue and back? */
async function freshRun(ctx: LabContext, name: LoopNames, work: WorkConsumer, trail: Trail, expired: Trail) {
  let requeues = 0;
  const back = deferred<string>();
  work.on('fresh', (m) => {
    if (limitedIn(m.headers, name.work)) {
      m.ack();
      back.resolve('back in work');
      return;
    }
    if (requeues >= MAX_REQUEUES) {
      m.ack();
      back.resolve('never dead-lettered');
      return;
    }
    requeues += 1;
    m.reject(true);
  });
  await ctx.broker.sendConfirmed(name.work, 'fresh', { messageId: 'fresh' });
  const limited = await ctx.within(
    Promise.race([trail.afterLimit('fresh'), back.promise.then(() => 'none')]),
    30_000,
    `the fresh message dead-lettered or given up on ${name.work}`,
  );
  if (limited === 'none') return { requeues, outcome: 'no dead letter' };
  const left = await orAfter(
    ctx,
    Promise.race([expired.afterLimit('fresh').then(() => 'left'), back.promise]),
    BACK_WINDOW_MS,
    'dropped on its way into the wait queue',
  );
  if (left !== 'left') return { requeues, outcome: left };
  const outcome = await orAfter(ctx, back.promise, BACK_WINDOW_MS, 'dropped on its second arrival in work');
  return { requeues, outcome };
}
