/**
 * One mode of the requeue-storm lab, run for a fixed window in this process:
 *   one failing message (fails on every delivery) + healthy messages published at a fixed rate,
 *   all on the same work queue, one push consumer on its own channel.
 *   requeue: failure → nack(requeue=true)          (the broker hands it back at once)
 *   delayed: failure → reject(requeue=false) → DLX → delay queue (TTL) → back to the work queue
 * When the window ends the failing message is taken off (acked) at its next delivery: at once in
 * `requeue`, after at most one TTL in `delayed` (`removed` settles then; the caller awaits it).
 */
import {
  type LabContext,
  closeChannel,
  type Delivery,
  deathCount,
  deferred,
  settledOrIdle,
  LabError,
} from '../../src/kit/index.js';
import { healthySchedule } from './measure.js';

/** the steps of a mode's consumer a broken variant may replace (variants.ts, TEST ONLY) */
export interface StormSteps {
  /** after the window (or the cap), the failing message is taken off the queue */
  removeFailing(m: Delivery): void;
  /** delayed mode rejects the failing message into its delay queue (requeue mode: a nack with requeue) */
  delayedRejects: boolean;
  /** requeue mode: the failing message goes back at once */
  requeueFailing(m: Delivery): void;
  /** a healthy message is processed */
  takeHealthy(m: Delivery, process: () => void): void;
}

type ModeName = 'requeue' | 'delayed';

interface ModeSpec {
  mode: ModeName;
  /** the work queue (failing and healthy messages) */
  queue: string;
  /** delayed mode: the delay queue, for the x-death lookup */
  delayQueue?: string;
  windowMs: number;
  prefetch: number;
  healthyPerSec: number;
  /** requeue mode: stop requeueing after this many redeliveries even inside the window */
  maxRedeliveries: number;
}

/** the delivery that took the failing message off the queue, as the broker handed it over */
export interface Removal {
  redelivered: boolean;
  /** quorum queues' own count of earlier returns of this message (null when the broker sent none) */
  brokerDeliveryCount: number | null;
  /** delayed mode: x-death counts stamped by the broker */
  xDeathRejected: number;
  xDeathExpired: number;
  /** when this process received it (ctx.now()) */
  atMs: number;
}

export interface ModeRun {
  mode: ModeName;
  /** measured: from publishing the failing message to the end of the window (or the cap) */
  activeMs: number;
  windowMs: number;
  /** deliveries of the failing message inside the window (the first one is not a redelivery) */
  failingDeliveries: number;
  /** of those, how many carried the broker's redelivered flag */
  redeliveredFlags: number;
  /** delivery instants of the failing message (ctx.now(); the storm has thousands, capped by maxRedeliveries) */
  failingAtMs: number[];
  capped: boolean;
  /** process CPU (user + system) over the window, ms */
  cpuMs: number;
  healthyPublished: number;
  healthyProcessed: number;
  /** healthy messages processed before the window closed (prefetch 1 + storm: none) */
  healthyProcessedInWindow: number;
  healthyLatenciesMs: number[];
  removed: Promise<Removal>;
  stop(): Promise<void>;
}

const FAILING = 'failing';
/** after the window the healthy backlog drains; the lab waits while it moves, until 5 s pass without one processed */
const DRAIN_IDLE_MS = 5000;
/** epoch ms with sub-ms precision: the clock of the published_at header and of delivery */
const wallNow = () => performance.timeOrigin + performance.now();

export async function runMode(ctx: LabContext, spec: ModeSpec): Promise<ModeRun> {
  const { broker, log } = ctx;
  const schedule = healthySchedule(spec.windowMs, spec.healthyPerSec);
  const failingId = `${FAILING}-${spec.mode}`;
  const removed = deferred<Removal>();
  const healthyDone = deferred();
  const latencies: number[] = [];
  const failingAtMs: number[] = [];
  let windowOver = false;
  let capped = false;
  let capAt = 0;
  let failingDeliveries = 0;
  let redeliveredFlags = 0;
  let lastHealthyAt = 0;
  // the consumer's steps, as taught
  const steps = ctx.steps<StormSteps>({
    removeFailing: (m) => m.ack(),
    delayedRejects: true,
    requeueFailing: (m) => m.nack(true), // back to the queue at once: the broker redelivers it immediately
    takeHealthy: (_m, process) => process(),
  });

  const remove = (m: Delivery) => {
    const atMs = ctx.now();
    steps.removeFailing(m);
    removed.resolve({
      redelivered: m.redelivered,
      brokerDeliveryCount: m.headers['x-delivery-count'] === undefined ? null : Number(m.headers['x-delivery-count']),
      xDeathRejected: deathCount(m.headers, spec.queue, 'rejected'),
      xDeathExpired: spec.delayQueue ? deathCount(m.headers, spec.delayQueue, 'expired') : 0,
      atMs,
    });
    log.emit('consumer', {
      mode: spec.mode,
      messageId: m.messageId,
      destination: spec.queue,
      status: 'removed_after_window',
    });
  };

  const onFailing = (m: Delivery) => {
    if (windowOver || capped) return remove(m);
    failingDeliveries += 1;
    failingAtMs.push(ctx.now());
    if (m.redelivered) redeliveredFlags += 1;
    if (spec.mode === 'delayed' && steps.delayedRejects) {
      m.reject(false); // dead-lettered into the delay queue; back after its TTL
      log.emit('consumer', {
        mode: spec.mode,
        messageId: m.messageId,
        delivery: failingDeliveries,
        status: 'rejected_to_delay',
      });
      return;
    }
    if (failingDeliveries - 1 >= spec.maxRedeliveries) {
      capped = true;
      capAt = ctx.now();
      log.emit('consumer', {
        mode: spec.mode,
        messageId: m.messageId,
        delivery: failingDeliveries,
        status: 'requeue_cap_reached',
      });
      return remove(m);
    }
    if (failingDeliveries === 1)
      log.emit('consumer', { mode: spec.mode, messageId: m.messageId, status: 'nack_requeue_storm_started' });
    steps.requeueFailing(m);
  };

  const channel = await broker.newChannel();
  const consumer = await broker.consume(
    spec.queue,
    (m) => {
      const at = wallNow();
      if (m.messageId === failingId) return onFailing(m);
      steps.takeHealthy(m, () => {
        latencies.push(at - Number(m.headers.published_at));
        lastHealthyAt = ctx.now();
        m.ack();
        if (latencies.length === schedule.length) healthyDone.resolve();
      });
    },
    { prefetch: spec.prefetch, channel },
  );
  const stop = async () => {
    await consumer.cancel();
    await closeChannel(channel);
  };

  try {
    log.emit('mode', {
      mode: spec.mode,
      queue: spec.queue,
      windowMs: spec.windowMs,
      healthy: schedule.length,
      status: 'started',
    });
    const cpu0 = process.cpuUsage();
    const t0 = ctx.now();
    const window = ctx.sleep(spec.windowMs);
    await broker.sendConfirmed(spec.queue, FAILING, { messageId: failingId });
    const confirms: Promise<void>[] = [];
    for (const [i, offset] of schedule.entries()) {
      const wait = t0 + offset - ctx.now();
      if (wait > 0) await ctx.sleep(wait);
      const id = `healthy-${spec.mode}-${i + 1}`;
      confirms.push(
        broker.sendConfirmed(spec.queue, 'healthy', { messageId: id, headers: { published_at: wallNow() } }),
      );
    }
    await Promise.race([window, consumer.failure]);
    windowOver = true;
    const healthyProcessedInWindow = latencies.length;
    const activeMs = (capped ? capAt : ctx.now()) - t0;
    const cpu = process.cpuUsage(cpu0);
    const published = (await Promise.allSettled(confirms)).filter((r) => r.status === 'fulfilled').length;
    if (published < schedule.length)
      throw new LabError(`the broker refused ${schedule.length - published} healthy message(s) on ${spec.queue}`);
    // every healthy message must get through; a shortfall is reported by the checks, not thrown
    const drainFrom = ctx.now();
    await settledOrIdle(
      Promise.race([healthyDone.promise, consumer.failure]),
      () => Math.max(drainFrom, lastHealthyAt),
      DRAIN_IDLE_MS,
      ctx,
    );
    const run: ModeRun = {
      mode: spec.mode,
      activeMs,
      windowMs: spec.windowMs,
      failingDeliveries,
      redeliveredFlags,
      failingAtMs,
      capped,
      cpuMs: (cpu.user + cpu.system) / 1000,
      healthyPublished: published,
      healthyProcessed: latencies.length,
      healthyProcessedInWindow,
      healthyLatenciesMs: [...latencies],
      removed: settledOrFailed(removed.promise, consumer.failure),
      stop,
    };
    log.emit('mode', {
      mode: spec.mode,
      failingDeliveries,
      capped,
      cpuMs: Math.round(run.cpuMs),
      healthyProcessed: `${run.healthyProcessed}/${published}`,
      status: 'window_closed',
    });
    return run;
  } catch (err) {
    await stop();
    throw err;
  }
}

function settledOrFailed<T>(p: Promise<T>, failure: Promise<never>): Promise<T> {
  const r = Promise.race([p, failure]);
  r.catch(() => {}); // the caller awaits it; an early consumer failure must not be an unhandled rejection
  return r;
}
