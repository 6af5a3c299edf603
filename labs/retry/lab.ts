/**
 * retry — limited delayed retry and poison-message isolation, as the RetryLab program's `retry`
 * mode does it (docs/labs/retry.md; the queues and their routes are drawn in names.ts).
 */
import {
  type Delivery,
  check,
  checkAtLeast,
  javaList,
  must,
  deadLetterHistory,
  deferred,
  gapsMs,
  TimedOut,
  labCode,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { EVENTS, TTL_MS, names, reset, schema, topology } from './names.js';

const MAX_ATTEMPTS = 3;

/** the steps of the retry protocol (a broken variant replaces one: variants.ts, TEST ONLY) */
export interface RetrySteps {
  /** how the poison message is settled */
  settlePoison(m: Delivery): void;
  /** where a retry copy goes */
  retryQueue: string;
  /** the attempt number a retry copy carries */
  nextAttempt(attempt: number): number;
  /** the business effect of a message */
  commit(id: string): Promise<unknown>;
}

export const lab = labCode(meta, {
  topology,
  schema,
  reset,

  async run(ctx) {
    const name = names(ctx.names);
    const { broker, db, log } = ctx;
    // the protocol's steps, as taught
    const policy = ctx.steps<RetrySteps>({
      // contract failure: no retry, straight to the dead-letter exchange
      settlePoison: (m) => m.reject(false),
      // a retry copy waits out the TTL in the delay queue, one attempt later
      retryQueue: name.delay,
      nextAttempt: (attempt) => attempt + 1,
      commit: (id) => db`INSERT INTO ${db(name.effect)} VALUES (${id}) ON CONFLICT DO NOTHING`,
    });
    const seen = { healthy: 0, poison: 0 };
    const transientAttempts: number[] = [];
    const transientAt: number[] = [];
    const committed = new Set<string>();
    const processed = deferred();

    const handle = async (m: Delivery) => {
      const id = m.messageId ?? '';
      const attempt = Number(m.headers.attempt);
      const received = log.emit('consumer', {
        messageId: id,
        destination: name.work,
        attempt,
        redelivered: m.redelivered,
        status: 'received',
      });
      if (id === 'poison') {
        seen.poison += 1;
        policy.settlePoison(m);
        log.emit('consumer', { messageId: id, attempt, status: 'rejected_to_dlx' });
      } else {
        if (id === 'healthy') seen.healthy += 1;
        if (id === 'transient') {
          transientAttempts.push(attempt);
          // the receipt's own timestamp: the page measures the same wait from the same event
          transientAt.push(Date.parse(received.fields.timestamp ?? ''));
          if (attempt < MAX_ATTEMPTS) {
            // the copy must be safe at the broker before the original delivery is settled
            await broker.sendConfirmed(policy.retryQueue, id, {
              messageId: id,
              headers: { attempt: policy.nextAttempt(attempt) },
            });
            log.emit('consumer', { messageId: id, attempt, destination: name.delay, status: 'retry_confirmed' });
            await ctx.checkpoint('before-ack', {
              messageId: id,
              attempt,
              note: 'copy confirmed in the delay queue, original not yet acked',
            });
            m.ack();
            log.emit('consumer', { messageId: id, attempt, status: 'acked' });
            return;
          }
        }
        await policy.commit(id);
        m.ack();
        committed.add(id);
        log.emit('consumer', { messageId: id, attempt, status: 'business_committed' });
      }
      if (committed.has('healthy') && committed.has('transient') && seen.poison === 1) processed.resolve();
    };
    const consumer = await broker.consume(name.work, handle, { prefetch: 10 });

    const dead = deferred<Delivery>();
    // logged when it arrives (the ack comes at the end): the page draws the receipt when it happened
    const dlqConsumer = await broker.consume(
      name.dlq,
      (m) => {
        log.emit('dlq', { messageId: m.messageId ?? '', destination: name.dlq, status: 'received' });
        dead.resolve(m);
      },
      { prefetch: 1 },
    );

    await Promise.all(
      EVENTS.map(async (id) => {
        log.emit('producer', { messageId: id, destination: name.work, attempt: 1, status: 'published' });
        await broker.sendConfirmed(name.work, id, { messageId: id, headers: { attempt: 1 } });
        log.emit('producer', { messageId: id, destination: name.work, attempt: 1, status: 'confirmed' });
      }),
    );

    await ctx.within(
      Promise.race([processed.promise, consumer.failure]),
      20_000,
      'healthy, transient (3 attempts) and poison on the work queue',
    );
    await consumer.cancel();
    // the poison message was rejected before the transient one's two TTL waits: by now it is in the
    // DLQ; a margin of a few TTLs, then a missing letter is a FAIL of poisonDeadLettered
    const letter = await ctx
      .within(Promise.race([dead.promise, dlqConsumer.failure]), 4 * TTL_MS, 'the poison message in the DLQ')
      .catch((err) => {
        if (err instanceof TimedOut) return null;
        throw err;
      });
    const rejected = deadLetterHistory(letter?.headers).find((e) => e.queue === name.work && e.reason === 'rejected');
    await ctx.checkpoint('dead-letter-sampled', {
      messageId: letter?.messageId ?? 'none',
      reason: rejected?.reason,
      queue: rejected?.queue,
    });
    letter?.ack(); // take the sample so the next run starts from known data
    await dlqConsumer.cancel();
    log.emit('dlq', {
      messageId: letter?.messageId ?? 'none',
      reason: rejected?.reason ?? 'none',
      queue: rejected?.queue ?? 'none',
      status: letter ? 'acked' : 'missing',
    });

    const [counted] = await db`SELECT count(*)::int AS count FROM ${db(name.effect)}`;
    const { count } = must(counted, 'the effect row count');
    const gaps = gapsMs(transientAt);
    const depths = await Promise.all([name.work, name.delay, name.dlq].map((name) => broker.depth(name)));
    const poisonDeadLettered = letter?.messageId === 'poison' && rejected !== undefined;

    return {
      lines: [
        `retry: healthyAttempts=${seen.healthy} transientAttempts=${javaList(transientAttempts)} businessRows=${count} poisonDeadLettered=${poisonDeadLettered}`,
      ],
      checks: [
        check('healthyAttempts', 1, seen.healthy),
        check('transientAttempts', [1, 2, 3], transientAttempts),
        check('businessRows', 2, count),
        check('poisonDeadLettered', true, poisonDeadLettered),
        checkAtLeast('shortestRetryGapMs', TTL_MS, gaps.length ? Math.min(...gaps) : 0),
        check(
          'queueDepthAfter',
          0,
          depths.reduce((a, b) => a + b, 0),
        ),
      ],
      facts: {
        retryGapsMs: gaps,
        poisonDeath: rejected ?? null,
        deathHistory: deadLetterHistory(letter?.headers),
        queueDepthAfter: { [name.work]: depths[0], [name.delay]: depths[1], [name.dlq]: depths[2] },
      },
    };
  },
});
