/**
 * publish-confirm — each of the two confirmations covers one leg (a confirm only says "the broker
 * took it"), and publish retry and consume retry happen in different places (the sources are
 * quoted in docs/labs/publish-confirm.md).
 *
 *  (a,b) producer ── key nowhere ──▶ me12.confirm.x (direct) ── orders ──▶ me12.confirm.orders
 *        mandatory: basic.return, then basic.ack        not mandatory: basic.ack only; in no queue either way
 *  (c)   producer ──▶ me12.confirm.bounded (x-max-length 1, x-overflow reject-publish): ack, nack; get; resend: ack
 *  (d)   producer-run1 (process): publish evt-publish-retry, publishAttempt=1, SIGKILL before the confirm
 *        producer-run2 (process): publishAttempt=2, confirmed
 *        consumer: each copy rejected once (requeue), then one transaction: claim event id, write effect; ack
 */
import {
  type LabContext,
  runChild,
  startAhead,
  type Ahead,
  check,
  summaryLine,
  must,
  labCode,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { consumeEvents, type ConsumeSteps, type Delivered } from './consumer.js';
import { FrameRecorder } from './frames.js';
import {
  EVENT_ID,
  MAX_LENGTH,
  ROUTED_KEY,
  UNROUTED_KEY,
  names,
  reset,
  schema,
  topology,
  type ConfirmNames,
} from './names.js';

const PRODUCER_SCRIPT = new URL('./producer.js', import.meta.url);

/** the steps of the publishers and the consumer a broken variant may replace (variants.ts, TEST ONLY) */
export interface ConfirmSteps extends ConsumeSteps {
  /** the route of the unrouted key before its publishes: unbound, so no binding matches */
  unrouteKey(bind: () => Promise<unknown>, unbind: () => Promise<unknown>): Promise<unknown>;
  /** the plain publish is not mandatory: the broker drops it and only acks */
  plainMandatory: boolean;
  /** the bounded queue's second publish, while the first message still fills it: nacked */
  publishSecond(send: () => Promise<boolean>): Promise<boolean>;
  /** the resend carries the same event id */
  resendId(eventId: string): string;
  /** the outcome was unknown, so the producer publishes the same event again */
  republish(run: () => Promise<void>): Promise<void>;
}

export const lab = labCode(meta, {
  topology,
  schema,
  reset,

  async run(ctx) {
    const name = names(ctx.names);
    // the publishers' and the consumer's steps, as taught
    const steps = ctx.steps<ConfirmSteps>({
      unrouteKey: (_bind, unbind) => unbind(),
      plainMandatory: false,
      publishSecond: (send) => send(),
      resendId: (eventId) => eventId,
      republish: (run) => run(),
      consumeRetry: true,
      dedupe: true,
    });
    const rec = await FrameRecorder.open(ctx.broker);
    try {
      const unrouted = await unroutable(ctx, name, rec, steps);
      const bounded = await boundedQueue(ctx, name, rec, steps);
      const retry = await publishRetry(ctx, name, steps);
      const s = { ...unrouted, ...bounded, ...retry };
      const summary = {
        mandatoryFrames: s.mandatory.frames.join(','),
        plainFrames: s.plain.frames.join(','),
        unroutedInQueues: s.unroutedInQueues,
        boundedFrames: s.boundedFrames.join(','),
        resendLanded: s.resendLanded,
        producerExit: s.producerExit,
        attempt1: s.attempt1,
        publishAttempts: s.publishAttempts.join(','),
        deliveryAttempts: s.deliveryAttempts.join(','),
        businessEffects: s.businessEffects,
        duplicatesSkipped: s.duplicatesSkipped,
      };
      return {
        lines: [summaryLine(ctx.lab, summary)],
        checks: [
          check('mandatoryFrames', 'return,ack', summary.mandatoryFrames),
          check('plainFrames', 'ack', summary.plainFrames),
          check('unroutedInQueues', 0, s.unroutedInQueues),
          check('boundedFrames', 'ack,nack,ack', summary.boundedFrames),
          check('resendLandedOnce', 1, s.resendLanded),
          check('producerExit', 137, s.producerExit),
          check('attempt1Result', 'unknown', s.attempt1),
          check('publishAttempts', [1, 2], s.publishAttempts),
          check('deliveryAttempts', [2, 2], s.deliveryAttempts),
          check('businessEffects', 1, s.businessEffects),
          check('duplicatesSkipped', 1, s.duplicatesSkipped),
        ],
        facts: {
          returned: { replyCode: s.mandatory.replyCode ?? null, replyText: s.mandatory.replyText ?? null },
          boundedDepthAfterNack: s.depthAfterNack,
          boundedDrained: s.drained,
          eventsDepthAfterCrash: s.depthAfterCrash,
          copiesConsumed: s.copies,
          deliveries: s.deliveries,
        },
      };
    } finally {
      await rec.close();
      await ctx.broker.channel.unbindQueue(name.orders, name.exchange, UNROUTED_KEY).catch(() => {});
    }
  },
});

/** (a) mandatory and (b) plain publishes that no binding matches */
async function unroutable(ctx: LabContext, name: ConfirmNames, rec: FrameRecorder, steps: ConfirmSteps) {
  const { broker, log } = ctx;
  await steps.unrouteKey(
    () => broker.channel.bindQueue(name.orders, name.exchange, UNROUTED_KEY),
    () => broker.channel.unbindQueue(name.orders, name.exchange, UNROUTED_KEY),
  );
  const mandatory = await rec.publish(name.exchange, UNROUTED_KEY, 'a', {
    messageId: 'evt-mandatory',
    mandatory: true,
  });
  log.emit('producer', {
    eventId: 'evt-mandatory',
    exchange: name.exchange,
    routingKey: UNROUTED_KEY,
    mandatory: true,
    frames: mandatory.frames,
    replyCode: mandatory.replyCode,
    status: 'settled',
  });
  const plain = await rec.publish(name.exchange, UNROUTED_KEY, 'b', {
    messageId: 'evt-plain',
    mandatory: steps.plainMandatory,
  });
  log.emit('producer', {
    eventId: 'evt-plain',
    exchange: name.exchange,
    routingKey: UNROUTED_KEY,
    mandatory: false,
    frames: plain.frames,
    status: 'settled',
  });
  // the exchange's only queue (bound with key orders) holds neither
  const unroutedInQueues = await broker.depth(name.orders);
  await ctx.checkpoint('returned', {
    mandatoryFrames: mandatory.frames.join(','),
    plainFrames: plain.frames.join(','),
    [name.orders]: unroutedInQueues,
    binding: ROUTED_KEY,
  });
  return { mandatory, plain, unroutedInQueues };
}

/** (c) a full queue that refuses a publish, and the resend with the same event id after space frees */
async function boundedQueue(ctx: LabContext, name: ConfirmNames, rec: FrameRecorder, steps: ConfirmSteps) {
  const { broker, log } = ctx;
  const frames: string[] = [];
  const send = async (eventId: string, attempt: number) => {
    const o = await rec.publish('', name.bounded, eventId, {
      messageId: eventId,
      headers: { eventId, publishAttempt: attempt },
    });
    frames.push(...o.frames);
    log.emit('producer', {
      eventId,
      publishAttempt: attempt,
      destination: name.bounded,
      frames: o.frames,
      status: o.frames.includes('nack') ? 'nacked' : 'confirmed',
    });
    return o.frames.includes('nack');
  };
  const take = async () => {
    const m = await broker.get(name.bounded);
    m?.ack();
    return m?.messageId ?? null;
  };
  await send('evt-c1', 1);
  const nacked = await steps.publishSecond(() => send('evt-c2', 1));
  const depthAfterNack = await broker.depth(name.bounded);
  await ctx.checkpoint('nacked', { queue: name.bounded, maxLength: MAX_LENGTH, depth: depthAfterNack });
  const drained: string[] = [];
  if (nacked) {
    const freed = await take();
    if (freed) drained.push(freed);
    await send(steps.resendId('evt-c2'), 2);
  }
  for (let id = await take(); id; id = await take()) drained.push(id);
  return {
    boundedFrames: frames,
    depthAfterNack,
    drained,
    resendLanded: drained.filter((id) => id === 'evt-c2').length,
  };
}

/** (d) a publish whose result is unknown, the second publish attempt, and consume retries behind both */
async function publishRetry(ctx: LabContext, name: ConfirmNames, steps: ConfirmSteps) {
  // the second attempt's process starts now, while the first runs: it publishes only when told
  const run2Ahead = startAhead(ctx, 'producer-run2', PRODUCER_SCRIPT, {
    args: ['--attempt', '2'],
    names: name,
    timeoutMs: 20_000,
  });
  // one a variant never starts ends with the run (ctx.ended)
  return publishAttempts(ctx, name, steps, run2Ahead);
}

async function publishAttempts(ctx: LabContext, name: ConfirmNames, steps: ConfirmSteps, run2Ahead: Ahead) {
  const { broker, db } = ctx;
  ctx.progress('producer-run1: publishes the event and kills itself before the confirm can arrive');
  const run1 = await runChild(ctx, 'producer-run1', PRODUCER_SCRIPT, {
    args: ['--attempt', '1', '--die-before-confirm'],
    names: name,
    timeoutMs: 20_000,
  });
  const attempt1 = run1.events.some((e) => e.fields.status === 'confirmed' || e.fields.status === 'nacked')
    ? 'confirmed'
    : 'unknown';
  const depthAfterCrash = await depthAtLeast(ctx, name.events, 1, 2000);
  await ctx.checkpoint('result-unknown', { exitCode: run1.exitCode, attempt1, [name.events]: depthAfterCrash });
  await steps.republish(async () => {
    ctx.progress('producer-run2: the result was unknown, so it publishes the same event id again (publishAttempt=2)');
    const run2 = await run2Ahead.start();
    if (run2.exitCode !== 0) ctx.progress(`producer-run2 exited ${run2.exitCode}`);
  });
  const copies = await broker.depth(name.events);
  const deliveries: Delivered[] = copies > 0 ? await consumeEvents(ctx, name, copies, steps) : [];
  const [counts] = await db`
    SELECT (SELECT count(*)::int FROM ${db(name.effects)} WHERE event_id = ${EVENT_ID}) AS effects,
           (SELECT count(*)::int FROM ${db(name.processed)} WHERE event_id = ${EVENT_ID}) AS claimed`;
  const rows = must(counts, 'the effect and dedupe row counts');
  await ctx.checkpoint('consumed', {
    deliveries: deliveries.length,
    businessEffects: rows.effects,
    dedupeRows: rows.claimed,
  });
  const attempts = [...new Set(deliveries.map((d) => d.publishAttempt))].sort();
  return {
    producerExit: run1.exitCode,
    attempt1,
    depthAfterCrash,
    copies,
    deliveries,
    publishAttempts: attempts,
    deliveryAttempts: attempts.map((a) =>
      Math.max(...deliveries.filter((d) => d.publishAttempt === a).map((d) => d.deliveryAttempt)),
    ),
    businessEffects: rows.effects as number,
    duplicatesSkipped: deliveries.filter((d) => d.outcome === 'duplicate_skipped').length,
  };
}

/** ready messages in `queue` (passive declare), sampled until at least `n` or `ms` passed */
async function depthAtLeast(ctx: LabContext, queue: string, n: number, ms: number): Promise<number> {
  const end = ctx.now() + ms;
  let d = await ctx.broker.depth(queue);
  while (d < n && ctx.now() < end) {
    await ctx.sleep(20);
    d = await ctx.broker.depth(queue);
  }
  return d;
}
