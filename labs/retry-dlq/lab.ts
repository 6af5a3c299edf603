/**
 * retry-dlq — retry counted by the broker's x-death, poison message to a DLQ.
 * The consumer runs as a separate process, the producer in the lab's; see names.ts for the routing and
 * docs/labs/retry-dlq.md for each output line.
 */
import { runChild, keepEvents, check, javaList, must, labCode } from '../../src/kit/index.js';
import { meta } from './meta.js';
import { countStatus, trailOf } from './verdicts.js';
import { produceOrders, type ProducerSteps } from './producer.js';
import { HEALTHY, ORDERS, POISON, SERVICE_FIELDS } from './orders.js';
import { MAX_ATTEMPTS, TTL_MS, reset, names, schema, topology } from './names.js';

/**
 * The consumer gives up when no delivery came for this long: one TTL hop (the poison message waits
 * in the retry queue, nothing arrives meanwhile) and a gate, plus a wide margin.
 */
const CONSUMER_IDLE_MS = TTL_MS + 13_000;
/** the lab's outer bound on the consumer process: a safety net far beyond any run that makes progress */
const CONSUMER_BOUND_MS = 120_000;

export const lab = labCode(meta, {
  topology,
  schema,
  reset,

  async run(ctx) {
    if (!ctx.caps.quorumMessageTtl) {
      return {
        lines: [],
        checks: [],
        skipped: `RabbitMQ ${ctx.caps.version} has no x-message-ttl on quorum queues (3.10+)`,
      };
    }
    const name = names(ctx.names);
    const { gateMs } = ctx.options; // 10 gates: 2 per healthy order, 6 for the poison one
    ctx.progress(
      `order-poison takes ${MAX_ATTEMPTS - 1} hops through ${name.retry} (TTL ${TTL_MS} ms) before it moves to ${name.dlq}`,
    );

    // the producer's steps, as taught
    const steps = ctx.steps<ProducerSteps>({ routingKey: (_order, queue) => queue });

    // The consumer is told how many messages must reach a final outcome; it exits on its own.
    const consuming = runChild(ctx, 'consumer', new URL('./consumer.js', import.meta.url), {
      args: [
        '--expect',
        String(ORDERS.length),
        '--idle-ms',
        String(CONSUMER_IDLE_MS + gateMs),
        '--gate-ms',
        String(gateMs),
      ],
      timeoutMs: CONSUMER_BOUND_MS + 10 * gateMs,
      names: name,
      gates: true,
    });
    // a failed publish still waits for the consumer (it ends by itself), so no process outlives the run
    const produced = await produceOrders(ctx, name.work, steps).catch(async (err) => {
      await consuming.catch(() => {});
      throw err;
    });
    const consumer = await consuming;
    const events = [...produced, ...consumer.events];

    const [work, retry, dlq] = await Promise.all([name.work, name.retry, name.dlq].map((q) => ctx.broker.depth(q)));
    const { db } = ctx;
    const [counts] = await db`
      SELECT (SELECT count(*)::int FROM ${db(name.orders)}) AS business, (SELECT count(*)::int FROM ${db(name.processed)}) AS processed`;
    const { business, processed } = must(counts, 'the business/processed row counts');
    const inspect = ctx.log.emit('inspect', {
      ...SERVICE_FIELDS,
      business_rows: business,
      processed_rows: processed,
      status: 'snapshot',
    });
    keepEvents(ctx.outDir, 'inspect-db', [inspect]);
    await ctx.checkpoint('after-consumer', { business_rows: business, processed_rows: processed });

    const confirmed = countStatus(events, 'producer', 'confirmed');
    const received = countStatus(events, 'consumer', 'received');
    const poison = trailOf(events, POISON.messageId);
    const moved = countStatus(events, 'consumer', 'poison_to_dlq', POISON.messageId);
    return {
      lines: [
        `retry-dlq: confirmed=${confirmed} received=${received} businessRows=${business} processedRows=${processed} ` +
          `poisonAttempts=${javaList(poison.attempts)} poisonMovedToDlq=${moved} dlqMessages=${dlq}`,
      ],
      checks: [
        check('confirmed', ORDERS.length, confirmed),
        check('business_rows', HEALTHY.length, business),
        check(
          'poisonAttempts',
          Array.from({ length: MAX_ATTEMPTS }, (_, i) => i + 1),
          poison.attempts,
        ),
        check('poisonMovedToDlq', 1, moved),
        check('dlqMessages', 1, dlq),
        check('workQueueDepthAfter', 0, work),
        check('retryQueueDepthAfter', 0, retry),
        check('consumer.exitCode', 0, consumer.exitCode),
      ],
      facts: {
        routing: {
          [name.work]: `dead letters → default exchange → ${name.retry}`,
          [name.retry]: `TTL ${TTL_MS} ms, dead letters → default exchange → ${name.work}`,
        },
        poisonRetryGapsMs: poison.gapsMs,
        poisonDeathsByAttempt: poison.deaths,
        queueDepthAfter: { [name.work]: work, [name.retry]: retry, [name.dlq]: dlq },
        dlqSample: `left in ${name.dlq} for inspection; the next run purges it`,
        processedRows: processed,
        readsClientXDeath: ctx.caps.readsClientXDeath,
      },
    };
  },
});
