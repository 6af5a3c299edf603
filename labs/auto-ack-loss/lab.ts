/**
 * auto-ack-loss — with auto ack a delivery counts as done, so a crash while processing loses the
 * message; "auto ack with a durable queue is safe too" is a misconception; a forgotten ack piles up
 * unacked messages (the source is quoted in docs/labs/auto-ack-loss.md).
 *
 *   producer (confirms) ──20──▶ me12.autoack.orders   ──▶ consumer-auto (noAck)        ✗ SIGKILL after 5 rows
 *   producer (confirms) ──20──▶ me12.manualack.orders ──▶ consumer-manual-run1 (ack)   ✗ SIGKILL after 5 rows
 *                                                     ──▶ consumer-manual-run2 (ack)   finishes, redelivered=true
 *   producer (confirms) ──10──▶ me12.noack.forgotten  ──▶ consumer-forget (never acks, prefetch 5), then closes
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type LabContext,
  startAhead,
  type Ahead,
  type ChildRun,
  check,
  checkAtLeast,
  summaryLine,
  must,
  labCode,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import {
  CRASH_AFTER,
  FORGET_MESSAGES,
  FORGET_PREFETCH,
  MESSAGES,
  PREFETCH,
  names,
  queueOf,
  reset,
  schema,
  topology,
  type AckNames,
  type Phase,
} from './names.js';

const CONSUMER = new URL('./consumer.js', import.meta.url);

export const lab = labCode(meta, {
  topology,
  schema,
  reset,

  async run(ctx) {
    const name = names(ctx.names);

    // each consumer process starts during the phase before its own (Node, loading, connecting) and consumes
    // only once told to; one not told (a failed run) ends with the run (ctx.ended)
    const early = (processName: string, phase: Phase, args: string[], prefetch = PREFETCH) =>
      consumerAhead(ctx, processName, phase, args, prefetch);
    const crash = ['--crash-after', String(CRASH_AFTER)];
    const autoConsumer = early('consumer-auto', 'auto', crash);
    const run1Consumer = early('consumer-manual-run1', 'manual', crash);

    // 1. auto-ack: what was delivered is gone from the broker, whether or not it was processed
    const autoConfirmed = await publish(ctx, name, 'auto', MESSAGES);
    const auto = await autoConsumer.start(['--expect', String(autoConfirmed)]);
    const autoQueueAfterCrash = await readyOnceGone(ctx, name.autoQueue);
    const autoRows = await rows(ctx, name, 'auto');
    const autoLost = autoConfirmed - autoQueueAfterCrash - autoRows;
    await ctx.checkpoint('auto-ack-crashed', {
      exitCode: auto.exitCode,
      delivered: received(auto),
      rows: autoRows,
      [name.autoQueue]: autoQueueAfterCrash,
      lost: autoLost,
    });

    // 2. manual ack: the same crash, nothing lost
    const run2Consumer = early('consumer-manual-run2', 'manual', []);
    const manualConfirmed = await publish(ctx, name, 'manual', MESSAGES);
    const run1 = await run1Consumer.start(['--expect', String(manualConfirmed)]);
    const readyAfterManualCrash = await readyOnceGone(ctx, name.manualQueue);
    await ctx.checkpoint('manual-crashed', {
      exitCode: run1.exitCode,
      rows: await rows(ctx, name, 'manual'),
      [name.manualQueue]: readyAfterManualCrash,
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-autoack-'));
    const [idleFile, release] = [path.join(dir, 'idle'), path.join(dir, 'release')];
    const forgetConsumer = early(
      'consumer-forget',
      'forget',
      ['--idle-file', idleFile, '--release-file', release],
      FORGET_PREFETCH,
    );
    const run2 =
      readyAfterManualCrash > 0 ? await run2Consumer.start(['--expect', String(readyAfterManualCrash)]) : null;
    const manualRows = await rows(ctx, name, 'manual');
    const manualQueueAfter = await ctx.broker.depth(name.manualQueue);
    const manualLost = manualConfirmed - manualQueueAfter - manualRows;
    const manualRedelivered = run2
      ? run2.events.filter((e) => e.fields.status === 'received' && e.fields.redelivered === 'true').length
      : 0;

    // 3. a consumer that never acks: unacked while its channel lives, ready again when it closes
    const forgetConfirmed = await publish(ctx, name, 'forget', FORGET_MESSAGES);
    const forgetting = forgetConsumer.start();
    const receivedByForget = await ctx.within(
      fileText(ctx, idleFile).then(Number),
      10_000,
      'the forgetting consumer to go idle',
    );
    // What the channel holds, from two exact counts (passive declares): the messages that are not ready while it
    // lives and are ready once it is gone were delivered to it and never acked. (The management statistics show
    // the same as `unacked` a sample later — one quorum tick plus one collection interval: the --step table.)
    const whileOpen = await ctx.broker.passive(name.forgetQueue);
    await ctx.checkpoint('unacked-held', {
      queue: name.forgetQueue,
      ready: whileOpen.ready,
      consumers: whileOpen.consumers,
    });
    fs.writeFileSync(release, '');
    const forget = await forgetting;
    fs.rmSync(dir, { recursive: true, force: true });
    const readyAfterClose = await readyOnceGone(ctx, name.forgetQueue);
    const unackedWhileOpen = readyAfterClose - whileOpen.ready;
    await ctx.checkpoint('returned', { queue: name.forgetQueue, ready: readyAfterClose });

    const summary = {
      confirmed: autoConfirmed,
      autoAckExit: auto.exitCode,
      autoAckDelivered: received(auto),
      autoAckQueueAfterCrash: autoQueueAfterCrash,
      autoAckRows: autoRows,
      autoAckLost: autoLost,
      manualExit: run1.exitCode,
      manualRows,
      manualLost,
      manualRedelivered,
      unackedWhileOpen,
      readyAfterClose,
    };
    return {
      lines: [summaryLine(ctx.lab, summary)],
      checks: [
        check('autoAckExit', 137, auto.exitCode),
        check('autoAckQueueAfterCrash', 0, autoQueueAfterCrash),
        checkAtLeast('autoAckLost', 1, autoLost),
        check('manualExit', 137, run1.exitCode),
        check('manualLost', 0, manualLost),
        checkAtLeast('manualRedelivered', 1, manualRedelivered),
        check('unackedWhileOpen', FORGET_PREFETCH, unackedWhileOpen),
        check('readyAfterClose', forgetConfirmed, readyAfterClose),
      ],
      facts: {
        published: { auto: autoConfirmed, manual: manualConfirmed, forget: forgetConfirmed },
        prefetch: { auto: PREFETCH, manual: PREFETCH, forget: FORGET_PREFETCH },
        autoAckDeliveredBeforeCrash: received(auto),
        manualReadyAfterCrash: readyAfterManualCrash,
        manualRun2Exit: run2?.exitCode ?? null,
        manualQueueAfter,
        forgetWhileOpen: { ready: whileOpen.ready, consumers: whileOpen.consumers },
        receivedByForgettingConsumer: receivedByForget,
        forgetExit: forget.exitCode,
      },
    };
  },
});

/** publish `count` messages with confirms; returns how many the broker acked */
async function publish(ctx: LabContext, name: AckNames, phase: Phase, count: number): Promise<number> {
  const queue = queueOf(name, phase);
  const results = await Promise.allSettled(
    Array.from({ length: count }, (_, i) =>
      ctx.broker.sendConfirmed(queue, `order ${i + 1}`, { messageId: `${phase}-${String(i + 1).padStart(3, '0')}` }),
    ),
  );
  const confirmed = results.filter((r) => r.status === 'fulfilled').length;
  ctx.log.emit('producer', { phase, destination: queue, published: count, confirmed, status: 'confirmed' });
  return confirmed;
}

/** a consumer process started ahead (src/kit/child/child.ts startAhead): it says how it consumes when told to start */
function consumerAhead(ctx: LabContext, name: string, phase: Phase, args: string[], prefetch: number): Ahead {
  const ahead = startAhead(ctx, name, CONSUMER, {
    args: ['--phase', phase, '--prefetch', String(prefetch), ...args],
    names: names(ctx.names),
    timeoutMs: 30_000,
  });
  return {
    start(more = []) {
      ctx.progress(
        `${name}: ${phase === 'auto' ? 'noAck=true' : phase === 'manual' ? 'manual ack' : 'never acks'}, prefetch ${prefetch}`,
      );
      return ahead.start(more);
    },
    drop: () => ahead.drop(),
  };
}

/**
 * Ready messages once the broker has seen the consumer go (its consumer count is 0): it returns a dead
 * channel's unacked messages in the same step, so a count read earlier could miss them.
 */
async function readyOnceGone(ctx: LabContext, queue: string): Promise<number> {
  const end = ctx.now() + 5000;
  let q = await ctx.broker.passive(queue);
  while (q.consumers > 0 && ctx.now() < end) {
    await ctx.sleep(20);
    q = await ctx.broker.passive(queue);
  }
  return q.ready;
}

/** the text of a file another process writes, once it exists */
async function fileText(ctx: LabContext, file: string): Promise<string> {
  while (!fs.existsSync(file)) await ctx.sleep(50);
  return fs.readFileSync(file, 'utf8');
}

const received = (r: ChildRun) => r.events.filter((e) => e.fields.status === 'received').length;

async function rows(ctx: LabContext, name: AckNames, phase: Phase): Promise<number> {
  const [r] = await ctx.db`SELECT count(*)::int AS n FROM ${ctx.db(name.rows)} WHERE phase = ${phase}`;
  return must(r, `the ${phase} row count`).n as number;
}
