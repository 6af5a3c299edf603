/**
 * dead-letter-reasons (docs/labs/dead-letter-reasons.md): the three ways a message dies (TTL, queue
 * length, reject), the quorum delivery limit as a fourth, what dead-lettering changes on the
 * message, and x-death `count` growing when the same message dies again on the same (queue, reason).
 * Topology: ./topology.ts. All paths run at once, so the run waits only for the longest TTL (150 ms).
 */
import {
  type LabContext,
  closeChannel,
  type Delivery,
  check,
  checkAtLeast,
  deathCount,
  deferred,
  LabError,
  labCode,
  type CheckOf,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { names, topology, TWICE_AGAIN } from './names.js';
import {
  classifyDeadLetter,
  describeDeadLetter,
  expectedDeadLetters,
  summaryLine,
  tallyReasons,
  MESSAGE_TTL_MS,
  QUEUE_TTL_MS,
  SINGLE_PATHS,
  type DeadLetterView,
  type PathName,
} from './reasons.js';

/** a consumer's settle, logged with its status */
export type Settle = (m: Delivery, status: string, act: () => void) => void;

/** the steps of the experiment a broken variant may replace (variants.ts, TEST ONLY) */
export interface ReasonSteps {
  /** how a message of a path is published: through the business exchange, with the path as routing key */
  publish(path: PathName, id: string, props: { expiration?: string }): Promise<unknown>;
  /** the two max-length messages, in publish order */
  maxLengthOrder: readonly [string, string];
  /** the delivery-limit consumer: reject with requeue, which counts toward x-delivery-limit */
  settleAtLimit(m: Delivery, settle: Settle): void;
  /** the twice consumer's n-th delivery: rejected, so the broker dead-letters it again */
  settleTwice(m: Delivery, n: number, settle: Settle): void | Promise<void>;
}

interface Arrival {
  key: string;
  messageId: string;
  view: DeadLetterView;
  twiceCount: number;
  at: number;
}

/** routing keys of the dead letters the watch queue must see: one per path, two for `twice` */
const WATCHED = [...SINGLE_PATHS, 'twice', TWICE_AGAIN];
const CHECK_NAME: Record<PathName, CheckOf<typeof meta>['name']> = {
  'queue-ttl': 'queueTtl',
  'message-ttl': 'messageTtl',
  'max-length': 'maxLength',
  reject: 'reject',
  'delivery-limit': 'deliveryLimit',
  twice: 'twice',
};

export const lab = labCode(meta, {
  topology,

  async run(ctx) {
    const name = names(ctx.names);
    const { broker, log } = ctx;
    const expected = expectedDeadLetters(ctx.caps.version, name);
    // the producer's and consumers' steps, as taught
    const steps = ctx.steps<ReasonSteps>({
      publish: (path, id, props) => broker.publishConfirmed(name.business, path, id, { messageId: id, ...props }),
      maxLengthOrder: ['oldest', 'newest'],
      settleAtLimit: (m, settle) => settle(m, 'requeued', () => m.reject(true)),
      settleTwice: (m, _n, settle) => settle(m, 'rejected', () => m.reject(false)),
    });
    const settle: Settle = (m, status, act) => {
      act();
      log.emit('consumer', { messageId: m.messageId, destination: m.queue, redelivered: m.redelivered, status });
    };
    const arrivals: Arrival[] = [];
    const allDead = deferred();
    const watcher = await broker.consume(name.watch, (m: Delivery) => {
      const a = {
        key: m.raw.fields.routingKey,
        messageId: m.messageId ?? '',
        view: classifyDeadLetter(m.headers, m.raw.properties),
        twiceCount: deathCount(m.headers, name.work.twice, 'rejected'),
        at: ctx.now(),
      };
      arrivals.push(a);
      m.ack(); // the watch copy only; the DLQ keeps its own copy untouched
      log.emit('dlq', {
        messageId: a.messageId,
        routingKey: a.key,
        reason: a.view.reason,
        queue: a.view.queue,
        count: a.view.count,
        status: 'observed',
      });
      if (WATCHED.every((k) => arrivals.some((e) => e.key === k))) allDead.resolve();
    });

    const work = await broker.newChannel();
    const limitDeliveries: (number | null)[] = [];
    let twiceDeliveries = 0;
    const consumers = [
      await broker.consume(name.work.reject, (m) => settle(m, 'rejected', () => m.reject(false)), { channel: work }),
      // reject(requeue=true) counts toward x-delivery-limit on every version; nack(requeue=true)
      // stops counting on 4.3 (ctx.caps.nackRequeueCountsTowardLimit), so the lab never uses it here
      await broker.consume(
        name.work['delivery-limit'],
        (m) => {
          limitDeliveries.push(
            m.headers['x-delivery-count'] === undefined ? null : Number(m.headers['x-delivery-count']),
          );
          steps.settleAtLimit(m, settle);
        },
        { channel: work },
      ),
      await broker.consume(name.work.twice, (m) => steps.settleTwice(m, ++twiceDeliveries, settle), { channel: work }),
    ];

    const sentAt: Record<string, number> = {};
    const ttl = (ms: number) => (ms ? { expiration: String(ms) } : {});
    const send = async (key: PathName, id: string, props: { expiration?: string } = {}) => {
      sentAt[id] = ctx.now();
      await steps.publish(key, id, props);
      log.emit('producer', { messageId: id, destination: `${name.business}/${key}`, ...props, status: 'confirmed' });
    };
    const [older, newer] = steps.maxLengthOrder;
    await Promise.all([
      send('queue-ttl', 'queue-ttl', ttl(0)),
      send('message-ttl', 'message-ttl', ttl(MESSAGE_TTL_MS)),
      send('max-length', older).then(() => send('max-length', newer)),
      send('reject', 'reject'),
      send('delivery-limit', 'delivery-limit'),
      send('twice', 'twice'),
    ]);

    const failures = [watcher, ...consumers].map((c) => c.failure);
    const missing = () => WATCHED.filter((k) => !arrivals.some((e) => e.key === k)).join(', ');
    await ctx
      .within(Promise.race([allDead.promise, ...failures]), 5_000, `a dead letter for every path on ${name.watch}`)
      .catch((err) => {
        throw err instanceof LabError ? new LabError(`${err.message} (none arrived for: ${missing()})`) : err;
      });
    await Promise.all([watcher, ...consumers].map((c) => c.cancel()));
    await closeChannel(work);
    await ctx.checkpoint('dead-lettered', { dlqs: Object.keys(name.dlq).length });

    const byKey = (k: string) => arrivals.find((a) => a.key === k);
    const dlqs = Object.values(name.dlq);
    const works = [...Object.values(name.work), name.retry, name.watch];
    const wantWork = works.map((q) => (q === name.work['max-length'] ? 1 : 0));
    const [dlqDepths, workDepths] = await depthsWhenSettled(ctx, [dlqs, works], [dlqs.map(() => 1), wantWork], 1_000);

    const checks: CheckOf<typeof meta>[] = [];
    for (const p of SINGLE_PATHS) {
      const a = byKey(p);
      checks.push(
        check(CHECK_NAME[p], describeDeadLetter(expected[p].view), a ? describeDeadLetter(a.view) : 'no dead letter'),
      );
    }
    const lifetime = (p: PathName, id: string) => Math.ceil((byKey(p)?.at ?? 0) - (sentAt[id] ?? 0)); // broker stamps whole ms
    const msgTtl = byKey('message-ttl')?.view;
    const first = byKey('twice');
    const last = byKey(TWICE_AGAIN);
    const countGrowth = [first?.twiceCount ?? 0, last?.twiceCount ?? 0];
    checks.push(
      checkAtLeast('queueTtl.lifetimeMs', QUEUE_TTL_MS, lifetime('queue-ttl', 'queue-ttl')),
      check('messageTtl.expiration', 'removed', msgTtl ? (msgTtl.expiration ?? 'removed') : 'no dead letter'),
      check(
        'messageTtl.originalExpiration',
        expected['message-ttl'].view.originalExpiration,
        msgTtl?.originalExpiration ?? null,
      ),
      checkAtLeast('messageTtl.lifetimeMs', MESSAGE_TTL_MS, lifetime('message-ttl', 'message-ttl')),
      check('maxLength.deadLetter', expected['max-length'].messageId, byKey('max-length')?.messageId ?? 'none'),
      check('deliveryLimit.deliveries', expected['delivery-limit'].deliveries, limitDeliveries.length),
      check('twice.countGrowth', [1, 2], countGrowth),
      check('twice', describeDeadLetter(expected.twice.view), last ? describeDeadLetter(last.view) : 'no dead letter'),
      check('twice.history', expected.twice.view.history, last?.view.history ?? []),
      check(
        'dlqDepths',
        dlqs.map(() => 1),
        dlqDepths,
      ),
      check('workDepths', wantWork, workDepths),
    );

    const tally = tallyReasons(SINGLE_PATHS.map((p) => byKey(p)?.view));
    return {
      lines: [summaryLine(tally, msgTtl !== undefined && msgTtl.expiration === null, countGrowth)],
      checks,
      facts: {
        deadLetters: Object.fromEntries(arrivals.map((a) => [a.key, { messageId: a.messageId, ...a.view }])),
        lifetimesMs: {
          'queue-ttl': lifetime('queue-ttl', 'queue-ttl'),
          'message-ttl': lifetime('message-ttl', 'message-ttl'),
        },
        deliveryLimitDeliveries: { count: limitDeliveries.length, xDeliveryCount: limitDeliveries },
        twiceDeliveries,
        lastDeathHeaders: expected.reject.view.last !== null,
        nackRequeueCountsTowardLimit: ctx.caps.nackRequeueCountsTowardLimit,
        dlqDepths: Object.fromEntries(dlqs.map((q, i) => [q, dlqDepths[i]])),
        workDepths: Object.fromEntries(works.map((q, i) => [q, workDepths[i]])),
      },
    };
  },
});

type Pair<T> = [T, T];

/**
 * Ready-message counts are a broker statistic: a quorum queue applies an enqueue a moment after the
 * watch queue's copy was delivered, so sample until the counts match or `ms` has passed.
 */
async function depthsWhenSettled(
  ctx: LabContext,
  groups: Pair<string[]>,
  want: Pair<number[]>,
  ms: number,
): Promise<Pair<number[]>> {
  const end = ctx.now() + ms;
  const depths = (qs: string[]) => Promise.all(qs.map((q) => ctx.broker.depth(q)));
  const same = (got: number[], expected: number[]) =>
    got.length === expected.length && got.every((n, j) => n === expected[j]);
  for (;;) {
    const got = await Promise.all([depths(groups[0]), depths(groups[1])]);
    if ((same(got[0], want[0]) && same(got[1], want[1])) || ctx.now() >= end) return got;
    await ctx.sleep(5);
  }
}
