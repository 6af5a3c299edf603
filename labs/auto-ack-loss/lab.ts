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
import type { Lab, LabContext, NoOptions } from '../../src/lab.js';
import type { Fault } from './faults.js';
import type { Checkpoint } from './checkpoints.js';
import { runChild, type ChildRun } from '../../src/child.js';
import { check, checkAtLeast, summaryLine } from '../../src/report/checks.js';
import { must } from '../../src/must.js';
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
/** published once the forgetting consumer is idle: a statistics sample that counts it is newer than that */
const FORGET_MARKER = 'forget-marker';
/** management statistics are sampled: up to ~10 s late on an untuned broker */
const STATS_MS = 15_000;

export const lab: Lab<NoOptions, Fault, Checkpoint> = {
  topology,
  schema,
  reset,

  async run(ctx) {
    const name = names(ctx.names);

    // 1. auto-ack: what was delivered is gone from the broker, whether or not it was processed
    const autoConfirmed = await publish(ctx, name, 'auto', MESSAGES);
    const auto = await consumer(ctx, 'consumer-auto', 'auto', [
      '--crash-after',
      String(CRASH_AFTER),
      '--expect',
      String(autoConfirmed),
    ]);
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
    const manualConfirmed = await publish(ctx, name, 'manual', MESSAGES);
    const run1 = await consumer(ctx, 'consumer-manual-run1', 'manual', [
      '--crash-after',
      String(CRASH_AFTER),
      '--expect',
      String(manualConfirmed),
    ]);
    const readyAfterManualCrash = await readyOnceGone(ctx, name.manualQueue);
    await ctx.checkpoint('manual-crashed', {
      exitCode: run1.exitCode,
      rows: await rows(ctx, name, 'manual'),
      [name.manualQueue]: readyAfterManualCrash,
    });
    const run2 =
      readyAfterManualCrash > 0
        ? await consumer(ctx, 'consumer-manual-run2', 'manual', ['--expect', String(readyAfterManualCrash)])
        : null;
    const manualRows = await rows(ctx, name, 'manual');
    const manualQueueAfter = await ctx.broker.depth(name.manualQueue);
    const manualLost = manualConfirmed - manualQueueAfter - manualRows;
    const manualRedelivered = run2
      ? run2.events.filter((e) => e.fields.status === 'received' && e.fields.redelivered === 'true').length
      : 0;

    // 3. a consumer that never acks: unacked while its channel lives, ready again when it closes
    const forgetConfirmed = await publish(ctx, name, 'forget', FORGET_MESSAGES);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-autoack-'));
    const [idleFile, release] = [path.join(dir, 'idle'), path.join(dir, 'release')];
    const forgetting = consumer(
      ctx,
      'consumer-forget',
      'forget',
      ['--idle-file', idleFile, '--release-file', release],
      String(FORGET_PREFETCH),
    );
    forgetting.catch(() => {});
    const receivedByForget = await ctx.within(
      fileText(ctx, idleFile).then(Number),
      10_000,
      'the forgetting consumer to go idle',
    );
    // Statistics are sampled and lag 1-3 s: a sample taken before an acking consumer's acks still shows unacked
    // messages. A marker published now, after the consumer went idle, stays ready beside a consumer at its prefetch;
    // only a sample that counts it (10 + 1 in the queue) is recent enough. A consumer that acks takes the marker too
    // and never gets there: the check sees the last sample (unacked=0).
    await ctx.broker.sendConfirmed(name.forgetQueue, 'marker', { messageId: FORGET_MARKER });
    const inQueue = forgetConfirmed + 1;
    const held = await ctx.mgmt.queueWhen(
      name.forgetQueue,
      (q) => q.consumers >= 1 && q.unacked >= 1 && q.unacked + q.ready === inQueue,
      STATS_MS,
    );
    const readyWhileOpen = await ctx.broker.depth(name.forgetQueue);
    await ctx.checkpoint('unacked-held', {
      queue: name.forgetQueue,
      unacked: held?.unacked ?? '?',
      ready: readyWhileOpen,
    });
    fs.writeFileSync(release, '');
    const forget = await forgetting;
    fs.rmSync(dir, { recursive: true, force: true });
    const readyAfterClose = await readyOnceGone(ctx, name.forgetQueue);
    const after = await ctx.mgmt.queueWhen(name.forgetQueue, (q) => q.consumers === 0 && q.unacked === 0, STATS_MS);
    await ctx.checkpoint('returned', {
      queue: name.forgetQueue,
      ready: readyAfterClose,
      unacked: after?.unacked ?? '?',
    });

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
      unackedWhileOpen: held?.unacked ?? null,
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
        check('unackedWhileOpen', FORGET_PREFETCH, held?.unacked ?? null),
        check('readyAfterClose', inQueue, readyAfterClose),
      ],
      facts: {
        published: { auto: autoConfirmed, manual: manualConfirmed, forget: forgetConfirmed },
        prefetch: { auto: PREFETCH, manual: PREFETCH, forget: FORGET_PREFETCH },
        autoAckDeliveredBeforeCrash: received(auto),
        manualReadyAfterCrash: readyAfterManualCrash,
        manualRun2Exit: run2?.exitCode ?? null,
        manualQueueAfter,
        forgetWhileOpen: held && { ready: held.ready, unacked: held.unacked, consumers: held.consumers },
        readyWhileOpen,
        receivedByForgettingConsumer: receivedByForget,
        forgetAfterClose: after && { ready: after.ready, unacked: after.unacked, consumers: after.consumers },
        forgetExit: forget.exitCode,
      },
    };
  },
};

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

function consumer(
  ctx: LabContext,
  name: string,
  phase: Phase,
  args: string[],
  prefetch = String(PREFETCH),
): Promise<ChildRun> {
  ctx.progress(
    `${name}: ${phase === 'auto' ? 'noAck=true' : phase === 'manual' ? 'manual ack' : 'never acks'}, prefetch ${prefetch}`,
  );
  return runChild(ctx, name, CONSUMER, {
    args: ['--phase', phase, '--prefetch', prefetch, ...args],
    names: names(ctx.names),
    timeoutMs: 30_000,
  });
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
