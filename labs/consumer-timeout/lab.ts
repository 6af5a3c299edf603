/**
 * consumer-timeout — a consumer holds a delivery past its queue's consumer timeout (docs/labs/consumer-timeout.md).
 *
 *   held     (quorum)   consumer 1 holds `held` ──timeout──▶ 4.3: basic.cancel, the delivery back uncounted
 *                                                           4.0, 3.10: channel.close 406, the return counted
 *                       then another client takes `held`: its x-delivery-count says which
 *   ignored  (quorum)   consumer 2 holds `ignored-1` and ignores the cancel; `ignored-2` follows: on 4.3 it
 *                       receives nothing, sees no error, and both wait in the queue
 *   classic  (classic)  consumer 3 holds `classic`: 4.3 never times it out; 4.0, 3.10 close its channel
 *
 * Each consumer has a channel of its own (prefetch 1). The timeout is a policy (3.12+); 3.10 has only
 * the broker-wide consumer_timeout, set on mqlab's own node while the lab's channels open. Below 4.3 a
 * channel checks its consumers on its tick (channel_tick_interval, 60 s): shortened on mqlab's own node.
 */
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import {
  type ContextOf,
  check,
  checkAtLeast,
  closeChannel,
  deferred,
  labCode,
  ownServicesRefusal,
  readCount,
  setRabbitEnv,
  summaryLine,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { names, timeoutPolicy, topology, type TimeoutNames } from './names.js';

type Ctx = ContextOf<typeof meta>;

/** the steps of the experiment a broken variant may replace (variants.ts, TEST ONLY) */
export interface TimeoutSteps {
  /** the consumer timeout the lab gives its queues (null: none, the broker's 30 min) */
  timeoutMs: number | null;
}

/**
 * the channel tick below 4.3, on mqlab's own node for the run (the broker's default: 60 s). Not
 * shorter: a channel that closed itself for a timeout sends its close again on every tick until the
 * client's close-ok arrives (`handle_exception` answers noreply in state closing, rabbit_channel.erl
 * v4.0.5), and amqplib takes a second close on a channel it has freed for a connection error — seen
 * with 200 ms under load average 30 (`Frame on unknown channel`)
 */
const TICK_MS = 1000;
/** rabbit.app's channel_tick_interval (v3.10.8, v4.0.5); mqlab's own nodes set none */
const DEFAULT_TICK_MS = 60_000;
/** 3.10: the broker-wide consumer_timeout stands this long, for the lab's channels to open (they keep it) */
const OPEN_WINDOW_MS = 2000;

/** what the broker did to a consumer holding a delivery */
interface Action {
  what: 'basic.cancel' | 'channel.close';
  code?: number;
  at: number;
}

export const lab = labCode(meta, {
  topology,
  async run(ctx) {
    const name = names(ctx.names);
    const { caps } = ctx;
    // as taught: a timeout on the three queues (a classic queue beside the quorum ones: names.ts)
    const steps = ctx.steps<TimeoutSteps>({ timeoutMs: ctx.options.timeoutMs });
    const notOwn = ownServicesRefusal(ctx.config);
    if (!caps.consumerTimeoutPerQueue && notOwn)
      return {
        lines: [],
        checks: [],
        skipped:
          `RabbitMQ ${caps.version} has only the broker-wide consumer_timeout (a queue's own from 3.12.0), ` +
          `which the lab sets on mqlab's own services only: ${notOwn}`,
      };
    const timeoutMs = steps.timeoutMs;
    // below 4.3 the channel checks its consumers on its tick: shortened on mqlab's own node, else waited for
    const tickMs = caps.consumerTimeoutCancels ? 0 : notOwn ? DEFAULT_TICK_MS : TICK_MS;
    // 3.10: a channel reads the broker-wide timeout when it opens; the node sets it back by itself
    const moment =
      !caps.consumerTimeoutPerQueue && timeoutMs !== null
        ? { values: { consumer_timeout: timeoutMs }, ms: OPEN_WINDOW_MS }
        : undefined;
    let tickSet = false;
    if (!caps.consumerTimeoutCancels && !notOwn) {
      await setRabbitEnv(ctx.config, { channel_tick_interval: TICK_MS }, moment);
      tickSet = true;
    } else if (!caps.consumerTimeoutCancels)
      ctx.progress(
        `RabbitMQ ${caps.version} checks a consumer's timeout on its channel's tick (channel_tick_interval, 60 s by default): waiting up to ${Math.round((ctx.options.timeoutMs + tickMs) / 1000)} s`,
      );
    const channels: ConfirmChannel[] = [];
    try {
      if (caps.consumerTimeoutPerQueue) {
        if (timeoutMs === null) await ctx.mgmt.deletePolicy(name.policy);
        else await ctx.mgmt.putPolicy(timeoutPolicy(ctx.names, timeoutMs));
      }
      channels.push(...(await Promise.all([0, 1, 2].map(() => ctx.broker.newChannel()))));
      const [heldCh, ignoredCh, classicCh] = channels as [ConfirmChannel, ConfirmChannel, ConfirmChannel];
      // the broker acts on a held delivery at the timeout (4.3) or the first tick after it; none by then: it will not
      const bound = ctx.options.timeoutMs + tickMs + Math.max(2000, ctx.options.timeoutMs);
      const window = Math.max(2000, 2 * ctx.options.timeoutMs);

      const held = await holder(ctx, heldCh, name.held, 'held');
      // the ignoring client: it logs the broker's cancel and does nothing else
      const ignored = await holder(ctx, ignoredCh, name.ignored, 'ignored-1');
      const classic = await holder(ctx, classicCh, name.classic, 'classic');
      const classicActed = classic.acted(bound);
      const [heldAction, ignoredAction] = await Promise.all([held.acted(bound), ignored.acted(bound)]);
      await ctx.checkpoint('held-past-timeout', {
        held: describe(heldAction, held.open()),
        ignored: describe(ignoredAction, ignored.open()),
      });
      const [redelivery, ignoring, classicAction] = await Promise.all([
        takeAgain(ctx, name.held, 5000),
        ignoredAfter(ctx, name, ignored, window),
        classicActed,
      ]);
      // from the publish, not the receipt: the broker's timer starts when it delivers, which this
      // process learns later (under load 20 ms later: a receipt-based 980 ms for a 1000 ms timeout)
      const heldMs = heldAction ? heldAction.at - held.publishedAt : null;
      const expected = caps.consumerTimeoutCancels
        ? { action: 'basic.cancel, channel open', count: 'absent', ignored: 'deliveries=0 error=none waiting=2' }
        : { action: 'channel.close 406', count: 1, ignored: 'channel.close 406' };
      const facts = {
        timeoutMs,
        tickMs,
        boundMs: bound,
        windowMs: window,
        held: { deliveredAt: held.deliveredAt, action: heldAction, heldMs, redelivery },
        ignored: { action: ignoredAction, ...ignoring },
        classic: { action: classicAction, deliveredAt: classic.deliveredAt },
      };
      const heldLine = describe(heldAction, held.open());
      return {
        lines: [
          summaryLine('consumer-timeout', {
            brokerAction: `'${heldLine}'`,
            heldMs: heldMs ?? 'none',
            redeliveryCount: redelivery?.deliveryCount ?? 'no redelivery',
            ignoredCancel: `'${ignoring.outcome}'`,
            classicQueue: `'${describe(classicAction, classic.open())}'`,
          }),
        ],
        checks: [
          check('brokerAction', expected.action, heldLine),
          checkAtLeast('heldMs', ctx.options.timeoutMs, heldMs),
          check('redeliveryCount', expected.count, redelivery?.deliveryCount ?? 'no redelivery'),
          check('ignoredCancel', expected.ignored, ignoring.outcome),
          check(
            'classicQueueTimeout',
            caps.consumerTimeoutCancels ? 'none' : 'channel.close 406',
            describe(classicAction, classic.open()),
          ),
        ],
        facts,
      };
    } finally {
      // first, whatever fails after: the default, not the value found (a run cut short may have left its own)
      if (tickSet) await setRabbitEnv(ctx.config, { channel_tick_interval: DEFAULT_TICK_MS });
      for (const ch of channels) await closeChannel(ch);
      // what the ignoring and the classic consumer left, so the queues end empty
      await emptied(ctx, name.ignored);
      await emptied(ctx, name.classic);
      if (caps.consumerTimeoutPerQueue) await ctx.mgmt.deletePolicy(name.policy);
    }
  },
});

/** the broker's action as the summary says it */
function describe(a: Action | null, open: boolean): string {
  if (!a) return 'none';
  if (a.what === 'channel.close') return `channel.close ${a.code ?? '?'}`;
  return `basic.cancel, channel ${open ? 'open' : 'closed'}`;
}

/**
 * One consumer (prefetch 1) on its own channel that takes `id` and holds it, unacked. `acted(bound)`
 * resolves with the broker's action (a cancel: amqplib calls the handler with null; or the channel's
 * close) or null when none came within `bound` of the delivery. Every delivery is counted.
 */
async function holder(ctx: Ctx, ch: ConfirmChannel, queue: string, id: string) {
  const action = deferred<Action>();
  let closeCode: number | undefined;
  let closed = false;
  const delivered = deferred();
  const state = { deliveredAt: null as number | null, deliveries: [] as { id: string; at: number }[] };
  ch.on('error', (e: { code?: number }) => (closeCode = e.code));
  ch.on('close', () => {
    closed = true;
    action.resolve({ what: 'channel.close', ...(closeCode === undefined ? {} : { code: closeCode }), at: Date.now() });
  });
  const received = (m: ConsumeMessage) => {
    const at = Date.now();
    state.deliveries.push({ id: String(m.properties.messageId), at });
    ctx.log.emit('consumer', { queue, messageId: String(m.properties.messageId), status: 'received' });
    return at;
  };
  await ch.prefetch(1);
  await ch.consume(
    queue,
    (m) => {
      if (!m) {
        ctx.log.emit('consumer', { queue, status: 'cancelled by the broker' });
        action.resolve({ what: 'basic.cancel', at: Date.now() });
        return;
      }
      const at = received(m);
      if (state.deliveredAt === null) state.deliveredAt = at;
      delivered.resolve();
      // held: never acked
    },
    { noAck: false },
  );
  const publishedAt = Date.now();
  await ctx.broker.sendConfirmed(queue, id, { messageId: id });
  return {
    /** when this process sent the message: before the broker delivered it, so before its timeout began */
    publishedAt,
    get deliveredAt() {
      return state.deliveredAt;
    },
    deliveries: state.deliveries,
    open: () => !closed,
    async acted(bound: number): Promise<Action | null> {
      await ctx.within(delivered.promise, 10_000, `the delivery of ${id} on ${queue}`);
      return Promise.race([action.promise, ctx.sleep(bound).then(() => null)]);
    },
  };
}

/**
 * purge `queue` until it stays empty: a closed channel's unacked delivery comes back asynchronously,
 * and may land after a first purge (bounded)
 */
async function emptied(ctx: Ctx, queue: string) {
  const end = Date.now() + 2000;
  for (;;) {
    await ctx.broker.channel.purgeQueue(queue).catch(() => {});
    await ctx.sleep(100);
    if ((await ctx.broker.depth(queue)) === 0 || Date.now() > end) return;
  }
}

/** basic.get on the lab's own channel until the returned message comes back (bounded); acked */
async function takeAgain(ctx: Ctx, queue: string, waitMs: number) {
  const end = Date.now() + waitMs;
  for (;;) {
    const m = await ctx.broker.get(queue);
    if (m) {
      m.ack();
      return {
        redelivered: m.redelivered,
        deliveryCount: readCount(m.headers['x-delivery-count']),
        acquiredCount: readCount(m.headers['x-acquired-count']),
      };
    }
    if (Date.now() > end) return null;
    await ctx.sleep(50);
  }
}

/**
 * after the broker acted on the ignoring client: `ignored-2` is published, then for `window` ms what
 * reaches that client — deliveries after its first, an error (its channel closed) — and what waits
 */
async function ignoredAfter(ctx: Ctx, name: TimeoutNames, ignored: Awaited<ReturnType<typeof holder>>, window: number) {
  await ctx.broker.sendConfirmed(name.ignored, 'ignored-2', { messageId: 'ignored-2' });
  await ctx.sleep(window);
  const { ready, consumers } = await ctx.broker.passive(name.ignored);
  const later = ignored.deliveries.slice(1);
  const outcome = ignored.open()
    ? `deliveries=${later.length} error=none waiting=${ready}`
    : describe(await ignored.acted(0), false);
  return { outcome, deliveriesAfter: later, waiting: ready, consumersListed: consumers };
}
