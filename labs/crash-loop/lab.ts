/**
 * crash-loop — a poison pill that kills its consumer on every delivery, and the delivery limit
 * that ends the loop.
 *
 *   poison ──▶ crash-loop.work (quorum, x-delivery-limit 2) ──▶ consumer-1 ✗ SIGKILL, consumer-2 ✗, consumer-3 ✗
 *              └─ after the 3rd death: dead-lettered (delivery_limit) ──▶ crash-loop.dead
 *   contrast:  crash-loop.nack (same limit): nack(requeue) 3 times, then ack (4.3: nack does not count)
 *   4.3 only:  crash-loop.delayed (x-delayed-retry-type=failed, min 1000): the crash's redelivery waits
 *
 * Each consumer is its own process (poison-consumer.ts); the crashes are observed as their exits.
 */
import {
  type LabContext,
  runChild,
  type ChildRun,
  check,
  checkAtLeast,
  skipCheck,
  summaryLine,
  closeChannel,
  deferred,
  readCount,
  type Count,
  type Delivery,
  labCode,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { DELAY_MS, LIMIT, names, topology, type CrashLoopNames } from './names.js';
import { absentCounts, failedDeliveryCounts } from './counts.js';
import { watchDeadLetters, type DeadLetters } from './dead-letters.js';

/** the steps a broken variant may replace (variants.ts, TEST ONLY) */
export interface CrashLoopSteps {
  /** a count header (x-delivery-count, x-acquired-count) as the broker sent it: absent stays absent */
  readCount(v: unknown): Count;
  /** how the nack loop hands the message back: a nack with requeue */
  handBack(m: Delivery): void;
}

const SCRIPT = new URL('./poison-consumer.js', import.meta.url);
/** consumer processes started at most on the work queue: the limit's deliveries and a few more */
const MAX_CONSUMERS = LIMIT + 3;

export const lab = labCode(meta, {
  topology,
  async run(ctx) {
    const name = names(ctx.names);
    const steps = ctx.steps<CrashLoopSteps>({ readCount, handBack: (m) => m.nack(true) });
    const dead = await watchDeadLetters(ctx, name.dead);
    try {
      const delayedRetry = ctx.caps.nativeDelayedRetry;
      const [loop, nack, delayed] = await Promise.all([
        crashLoop(ctx, name, dead),
        nackLoop(ctx, name, dead, steps),
        delayedRetry ? delayedCrash(ctx, name, steps) : null,
      ]);
      const read = (v: unknown) => steps.readCount(v);
      const deliveries = loop.deliveries;
      const deliveryCounts = deliveries.map((d) => read(d.fields.deliveryCount));
      const acquiredCounts = deliveries.map((d) => read(d.fields.acquiredCount));
      const letter = dead.got('poison');
      const letterCount = letter ? read(letter.deliveryCount) : 'none';
      const nackExpected = ctx.caps.nackRequeueCountsTowardLimit
        ? `dead-lettered after ${LIMIT + 1} deliveries`
        : `acked after ${LIMIT + 2} deliveries`;
      const facts = {
        limit: LIMIT,
        delayMs: DELAY_MS,
        processes: loop.runs.map((r) => ({
          name: r.name,
          exitCode: r.exitCode,
          signal: r.signal,
          delivered: r.events.some(isDelivery),
        })),
        deliveries: deliveries.map((d) => d.fields),
        deadLetter: letter ?? null,
        nack,
        delayed,
      };
      return {
        lines: [
          summaryLine('crash-loop', {
            crashes: loop.crashExits.filter((c) => c === 137).length,
            deliveryCounts: `[${deliveryCounts.join(', ')}]`,
            acquiredCounts: `[${acquiredCounts.join(', ')}]`,
            deadLetter: letter?.reason ?? 'none',
            nackLoop: `'${nack.outcome}'`,
            ...(delayed ? { crashRedeliveryGapMs: delayed.gapMs } : {}),
          }),
        ],
        checks: [
          check('crashExits', Array(LIMIT + 1).fill(137), loop.crashExits),
          check('deliveriesUntilDeadLetter', LIMIT + 1, letter ? deliveries.length : 'not dead-lettered'),
          check('deadLetterReason', 'delivery_limit', letter?.reason ?? 'none'),
          check('deliveryCounts', failedDeliveryCounts(LIMIT), deliveryCounts),
          check(
            'acquiredCounts',
            ctx.caps.acquiredCountHeader ? failedDeliveryCounts(LIMIT) : absentCounts(LIMIT),
            acquiredCounts,
          ),
          // 3.10.8 sends the dead-lettered copy without x-delivery-count (to a push consumer)
          check(
            'deadLetterDeliveryCount',
            ctx.caps.deadLetteredCopyCarriesDeliveryCount ? LIMIT + 1 : 'absent',
            letterCount,
          ),
          check('nackLoop', nackExpected, nack.outcome),
          delayed
            ? checkAtLeast('crashRedeliveryDelayedMs', DELAY_MS, delayed.gapMs)
            : skipCheck(
                'crashRedeliveryDelayedMs',
                DELAY_MS,
                `needs RabbitMQ 4.3 native delayed retry (this broker: ${ctx.caps.version} ignores x-delayed-retry-*)`,
              ),
        ],
        facts,
      };
    } finally {
      await dead.close();
    }
  },
});

const isDelivery = (e: ChildRun['events'][number]) => e.source === 'consumer' && e.fields.status === 'received';

/**
 * publish the poison pill and start one consumer process after another until the broker
 * dead-letters it (the process still waiting then is stopped) or MAX_CONSUMERS got it
 */
async function crashLoop(ctx: LabContext, name: CrashLoopNames, dead: DeadLetters) {
  const deadLettered = dead.of('poison');
  let isDead = false;
  void deadLettered.then(() => (isDead = true));
  await ctx.broker.sendConfirmed(name.work, 'poison', { messageId: 'poison' });
  const runs: ChildRun[] = [];
  while (!isDead && runs.filter((r) => r.events.some(isDelivery)).length < MAX_CONSUMERS) {
    const consumer = `consumer-${runs.length + 1}`;
    ctx.progress(`${consumer}: consumes ${name.work}; the poison pill kills it`);
    runs.push(
      await runChild(ctx, consumer, SCRIPT, {
        args: ['--queue', name.work],
        names: name,
        stop: deadLettered,
        timeoutMs: 30_000,
      }),
    );
  }
  // the dead-lettering follows the last death within milliseconds; bounded, for a run that never gets there
  if (!isDead) await Promise.race([deadLettered, ctx.sleep(1000)]);
  const delivered = runs.filter((r) => r.events.some(isDelivery));
  return {
    runs,
    crashExits: delivered.map((r) => r.exitCode),
    deliveries: delivered.flatMap((r) => r.events.filter(isDelivery)),
  };
}

/** nack(requeue=true) the message LIMIT + 1 times, then ack it: does the broker dead-letter it first? */
async function nackLoop(ctx: LabContext, name: CrashLoopNames, dead: DeadLetters, steps: CrashLoopSteps) {
  const acked = deferred<number>();
  let n = 0;
  const counts: Count[] = [];
  const channel = await ctx.broker.newChannel();
  const consumer = await ctx.broker.consume(
    name.nack,
    (m) => {
      n += 1;
      counts.push(steps.readCount(m.headers['x-delivery-count']));
      if (n <= LIMIT + 1) return steps.handBack(m);
      m.ack();
      acked.resolve(n);
    },
    { prefetch: 1, channel },
  );
  await ctx.broker.sendConfirmed(name.nack, 'nacked', { messageId: 'nacked' });
  const end = await ctx.within(
    Promise.race([
      acked.promise.then((k) => `acked after ${k} deliveries`),
      dead.of('nacked').then(() => `dead-lettered after ${n} deliveries`),
      consumer.failure,
    ]),
    20_000,
    `the nacked message acked or dead-lettered on ${name.nack}`,
  );
  await consumer.cancel();
  await closeChannel(channel);
  return { outcome: end, deliveryCounts: counts };
}

/**
 * 4.3: this process consumes the delayed queue first, at a lower priority (x-priority -1); then a
 * consumer process subscribes (priority 0), publishes the message itself and dies on it. The only
 * consumer left is this one, subscribed before the crash: the redelivery's time is the broker's
 * delay, timed from the dead process's delivery (both Date.now(), one machine's clock).
 */
async function delayedCrash(ctx: LabContext, name: CrashLoopNames, steps: CrashLoopSteps) {
  const again = deferred<{ at: number; deliveryCount: unknown }>();
  const channel = await ctx.broker.newChannel();
  await channel.prefetch(1);
  const { consumerTag } = await channel.consume(
    name.delayed,
    (m) => {
      if (!m) return again.reject(new Error(`the broker cancelled the consumer on ${name.delayed}`));
      again.resolve({ at: Date.now(), deliveryCount: m.properties.headers?.['x-delivery-count'] });
      channel.ack(m);
    },
    { noAck: false, priority: -1 },
  );
  const crashed = await runChild(ctx, 'consumer-delayed', SCRIPT, {
    args: ['--queue', name.delayed, '--publish', 'delayed', '--timeout-ms', '10000'],
    names: name,
    timeoutMs: 30_000,
  });
  const first = crashed.events.find(isDelivery);
  const second = await ctx.within(
    again.promise,
    DELAY_MS + 20_000,
    `the redelivery of the crashed message on ${name.delayed}`,
  );
  await channel.cancel(consumerTag);
  await closeChannel(channel);
  const firstAt = Number(first?.fields.at ?? Number.NaN);
  return {
    exitCode: crashed.exitCode,
    gapMs: Number.isFinite(firstAt) ? second.at - firstAt : null,
    redeliveryDeliveryCount: steps.readCount(second.deliveryCount),
  };
}
