/**
 * dlx-loop — seed 003 §5.1: a dead-letter route that leads back into its own queue.
 *
 * The queues and routes are drawn in names.ts.
 */
import type { Lab, LabContext } from '../../src/lab.js';
import type { Delivery } from '../../src/broker/broker.js';
import { check, checkAtLeast, javaList } from '../../src/report/checks.js';
import { deathCount } from '../../src/broker/xdeath.js';
import { vhostDeadLetterLoops } from '../../src/broker/dlx-graph.js';
import { deferred, gapsMs } from '../../src/time.js';
import { names, RETRY_TTL_MS, topology } from './names.js';

const RETURNS = 3; // how many times the broken loop may bring the message back before the lab stops it
const MAX_ATTEMPTS = 3;

export const lab: Lab = {
  topology,

  async run(ctx) {
    const x = names(ctx.names);
    const topologyCheck = loopsOf(ctx, [x.business, x.fixedBusiness, x.fixedRetry, x.fixedArchive]);
    const broken = await runBroken(ctx, x.business);
    const fixed = await runFixed(ctx, x);
    const loops = await topologyCheck;
    const depths = await Promise.all(Object.values(x).filter((name) => ![x.dead, x.fixedDead].includes(name)).map((name) => ctx.broker.depth(name)));
    const brokenLoop = loops.find((l) => l.queue === x.business);
    const fixedLoops = loops.filter((l) => l.queue !== x.business);
    const loopGapMaxMs = Math.max(...broken.gaps);
    return {
      lines: [
        `dlx-loop: loopDetected=${Boolean(brokenLoop)} xDeathCounts=${javaList(broken.counts)} loopGapMaxMs=${loopGapMaxMs} ` +
          `fixedLoopDetected=${fixedLoops.length > 0} leftLoopAfterAttempts=${fixed.attempts} archived=${fixed.archived}`,
      ],
      checks: [
        check('loopDetected', true, Boolean(brokenLoop)),
        check('xDeathCounts', Array.from({ length: RETURNS }, (_, i) => i + 1), broken.counts),
        check('fixedLoopDetected', false, fixedLoops.length > 0),
        check('leftLoopAfterAttempts', MAX_ATTEMPTS, fixed.attempts),
        checkAtLeast('fixedShortestRetryGapMs', RETRY_TTL_MS, Math.min(...fixed.gaps)),
        check('archived', 1, fixed.archived),
        check('queueDepthAfter', 0, depths.reduce((a, b) => a + b, 0)),
      ],
      facts: { loopPath: brokenLoop?.path.join(' → ') ?? null, brokenGapsMs: broken.gaps, fixedGapsMs: fixed.gaps, otherLoops: fixedLoops },
    };
  },
};

/** what `mqlab status` would flag, restricted to this lab's queues */
async function loopsOf(ctx: LabContext, mine: string[]) {
  return (await vhostDeadLetterLoops(ctx.mgmt)).filter((l) => mine.includes(l.queue));
}

/** reject the same message again and again: it comes straight back, x-death count +1 each time */
async function runBroken(ctx: LabContext, queue: string) {
  const counts: number[] = [];
  const at: number[] = [];
  const done = deferred();
  const consumer = await ctx.broker.consume(queue, (m: Delivery) => {
    at.push(ctx.now());
    const count = deathCount(m.headers, queue, 'rejected');
    if (at.length > 1) counts.push(count);
    ctx.log.emit('consumer', { messageId: m.messageId, destination: queue, xDeathCount: count, status: at.length <= RETURNS ? 'rejected' : 'acked_to_stop_loop' });
    if (at.length <= RETURNS) return m.reject(false);
    m.ack();
    done.resolve();
  });
  await ctx.broker.sendConfirmed(queue, 'loop', { messageId: 'loop-1' });
  await ctx.within(Promise.race([done.promise, consumer.failure]), 10_000, 'the message to come back around the loop');
  await consumer.cancel();
  await ctx.checkpoint('loop-stopped', { queue, returns: counts.length });
  return { counts, gaps: gapsMs(at) };
}

/** the split route: retries wait in a TTL queue, the last attempt goes to the archive */
async function runFixed(ctx: LabContext, x: ReturnType<typeof names>) {
  const at: number[] = [];
  const archived = deferred<Delivery>();
  const work = await ctx.broker.consume(x.fixedBusiness, async (m: Delivery) => {
    at.push(ctx.now());
    const attempt = deathCount(m.headers, x.fixedBusiness, 'rejected') + 1;
    if (attempt < MAX_ATTEMPTS) {
      ctx.log.emit('consumer', { messageId: m.messageId, destination: x.fixedBusiness, attempt, status: 'rejected_to_retry' });
      return m.reject(false);
    }
    await ctx.broker.publishConfirmed(x.fixedDead, 'rk.archive', m.body, { messageId: m.messageId });
    m.ack();
    ctx.log.emit('consumer', { messageId: m.messageId, destination: x.fixedArchive, attempt, status: 'archived' });
  });
  const archive = await ctx.broker.consume(x.fixedArchive, (m) => archived.resolve(m));
  await ctx.broker.sendConfirmed(x.fixedBusiness, 'loop', { messageId: 'loop-2' });
  const letter = await ctx.within(Promise.race([archived.promise, work.failure, archive.failure]), 10_000, 'the message to leave the loop into the archive');
  letter.ack();
  await Promise.all([work.cancel(), archive.cancel()]);
  return { attempts: at.length, gaps: gapsMs(at), archived: letter.messageId === 'loop-2' ? 1 : 0 };
}

