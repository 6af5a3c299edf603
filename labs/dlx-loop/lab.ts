/**
 * dlx-loop — a dead-letter route that leads back into its own queue (docs/labs/dlx-loop.md).
 *
 * The queues and routes are drawn in names.ts.
 */
import {
  type LabContext,
  type Delivery,
  check,
  checkAtLeast,
  javaList,
  deadLetterHistory,
  deathCount,
  vhostDeadLetterLoops,
  deferred,
  gapsMs,
  settledOrIdle,
  LabError,
  labCode,
} from '../../src/kit/index.js';
import { meta } from './meta.js';
import { names, RETRY_TTL_MS, topology } from './names.js';

/** the steps of the two consumers a broken variant may replace (variants.ts, TEST ONLY) */
export interface LoopSteps {
  /** how the looping queue's consumer hands a message back (a dead-letter hop) */
  returnToLoop(m: Delivery): void;
  /** the attempt the fixed consumer archives at instead of retrying */
  lastAttempt: number;
  /** the message id the archived copy carries */
  archivedId(m: Delivery): string | undefined;
  /** what becomes of the letter taken from the archive queue */
  settleArchived(letter: Delivery): void | Promise<void>;
}

const RETURNS = 3; // how many times the broken loop may bring the message back before the lab stops it
const MAX_ATTEMPTS = 3;
/** give up on a message once nothing has arrived for this long (a busy machine only makes hops later) */
const IDLE_MS = 10_000;

export const lab = labCode(meta, {
  topology,

  async run(ctx) {
    const name = names(ctx.names);
    // the consumers' steps, as taught
    const steps = ctx.steps<LoopSteps>({
      returnToLoop: (m) => m.reject(false),
      lastAttempt: MAX_ATTEMPTS,
      archivedId: (m) => m.messageId,
      settleArchived: (letter) => letter.ack(),
    });
    // the management API's view of the routes, read while the runs go on and awaited after them: a
    // refusal meanwhile reaches the run there (an environment error), not the process as unhandled
    const topologyCheck = loopsOf(ctx, [name.business, name.fixedBusiness, name.fixedRetry, name.fixedArchive]);
    topologyCheck.catch(() => {});
    const broken = await runBroken(ctx, name.business, steps);
    const fixed = await runFixed(ctx, name, steps);
    const loops = await topologyCheck;
    const depths = await Promise.all(
      Object.values(name)
        .filter((queue) => ![name.dead, name.fixedDead].includes(queue))
        .map((queue) => ctx.broker.depth(queue)),
    );
    const brokenLoop = loops.find((l) => l.queue === name.business);
    const fixedLoops = loops.filter((l) => l.queue !== name.business);
    const loopGapMaxMs = broken.gaps.length ? Math.max(...broken.gaps) : null;
    return {
      lines: [
        `dlx-loop: loopDetected=${Boolean(brokenLoop)} xDeathCounts=${javaList(broken.counts)} loopGapMaxMs=${loopGapMaxMs} ` +
          `fixedLoopDetected=${fixedLoops.length > 0} leftLoopAfterAttempts=${fixed.attempts} archived=${fixed.archived}`,
      ],
      checks: [
        check('loopDetected', true, Boolean(brokenLoop)),
        check(
          'xDeathCounts',
          Array.from({ length: RETURNS }, (_, i) => i + 1),
          broken.counts,
        ),
        // "no delay": the broker's own history of the looping message names no queue it waited in, only the rejection
        check('loopHistory', [`rejected/${name.business}×${RETURNS}`], broken.history),
        check('fixedLoopDetected', false, fixedLoops.length > 0),
        check('leftLoopAfterAttempts', MAX_ATTEMPTS, fixed.attempts),
        checkAtLeast('fixedShortestRetryGapMs', RETRY_TTL_MS, fixed.gaps.length ? Math.min(...fixed.gaps) : NaN),
        check('archived', 1, fixed.archived),
        check(
          'queueDepthAfter',
          0,
          depths.reduce((a, b) => a + b, 0),
        ),
      ],
      facts: {
        loopPath: brokenLoop?.path.join(' → ') ?? null,
        brokenGapsMs: broken.gaps,
        loopGapMaxMs,
        fixedGapsMs: fixed.gaps,
        fixedHistory: fixed.history,
        otherLoops: fixedLoops,
      },
    };
  },
});

/**
 * what `mqlab status` would flag, restricted to this lab's queues (read one by one: listing every queue
 * of a vhost that ten namespaced runs share took the management API over its 10 s limit here)
 */
async function loopsOf(ctx: LabContext, mine: string[]) {
  const known = (await Promise.all(mine.map((q) => ctx.mgmt.queue(q)))).filter((q) => q !== null);
  return (await vhostDeadLetterLoops(ctx.mgmt, known)).filter((l) => mine.includes(l.queue));
}

/** settle with `done`, or stop waiting once no delivery has come for IDLE_MS (a lost message is a finding) */
async function untilDoneOrIdle(
  ctx: LabContext,
  done: Promise<unknown>,
  failure: Promise<never>,
  lastAt: () => number,
): Promise<void> {
  if (await settledOrIdle(Promise.race([done, failure]), lastAt, IDLE_MS, ctx))
    ctx.progress(`nothing arrived for ${IDLE_MS} ms; reporting what was seen`);
}

/** reject the same message again and again: it comes straight back, x-death count +1 each time */
async function runBroken(ctx: LabContext, queue: string, steps: LoopSteps) {
  const counts: number[] = [];
  const at: number[] = [];
  let history: string[] = [];
  const done = deferred();
  const consumer = await ctx.broker.consume(queue, (m: Delivery) => {
    at.push(ctx.now());
    const count = deathCount(m.headers, queue, 'rejected');
    if (at.length > 1) counts.push(count);
    history = deadLetterHistory(m.headers).map((e) => `${e.reason}/${e.queue}×${e.count}`);
    ctx.log.emit('consumer', {
      messageId: m.messageId,
      destination: queue,
      xDeathCount: count,
      status: at.length <= RETURNS ? 'rejected' : 'acked_to_stop_loop',
    });
    if (at.length <= RETURNS) return steps.returnToLoop(m);
    m.ack();
    done.resolve();
  });
  const sent = ctx.now();
  await ctx.broker.sendConfirmed(queue, 'loop', { messageId: 'loop-1' });
  await untilDoneOrIdle(ctx, done.promise, consumer.failure, () => at.at(-1) ?? sent);
  await consumer.cancel();
  await ctx.checkpoint('loop-stopped', { queue, returns: counts.length });
  return { counts, gaps: gapsMs(at), history };
}

/** the split route: retries wait in a TTL queue, the last attempt goes to the archive */
async function runFixed(ctx: LabContext, name: ReturnType<typeof names>, steps: LoopSteps) {
  const at: number[] = [];
  const archived = deferred<Delivery>();
  let history: string[] = [];
  const work = await ctx.broker.consume(name.fixedBusiness, async (m: Delivery) => {
    at.push(ctx.now());
    const attempt = deathCount(m.headers, name.fixedBusiness, 'rejected') + 1;
    history = deadLetterHistory(m.headers).map((e) => `${e.reason}/${e.queue}×${e.count}`);
    if (attempt < steps.lastAttempt) {
      ctx.log.emit('consumer', {
        messageId: m.messageId,
        destination: name.fixedBusiness,
        attempt,
        status: 'rejected_to_retry',
      });
      return m.reject(false);
    }
    await ctx.broker.publishConfirmed(name.fixedDead, 'rk.archive', m.body, { messageId: steps.archivedId(m) });
    m.ack();
    ctx.log.emit('consumer', { messageId: m.messageId, destination: name.fixedArchive, attempt, status: 'archived' });
  });
  const archive = await ctx.broker.consume(name.fixedArchive, (m) => archived.resolve(m));
  const sent = ctx.now();
  await ctx.broker.sendConfirmed(name.fixedBusiness, 'loop', { messageId: 'loop-2' });
  await untilDoneOrIdle(ctx, archived.promise, Promise.race([work.failure, archive.failure]), () => at.at(-1) ?? sent);
  const letter = await Promise.race([archived.promise, ctx.sleep(0).then(() => null)]);
  await Promise.all([work.cancel(), archive.cancel()]);
  if (letter) await steps.settleArchived(letter);
  if (!letter && at.length === 0) throw new LabError(`the message never reached ${name.fixedBusiness}`);
  return { attempts: at.length, gaps: gapsMs(at), history, archived: letter?.messageId === 'loop-2' ? 1 : 0 };
}
