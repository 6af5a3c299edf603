/**
 * While a returned message waits out its delay it is still in the queue: the management statistics
 * show it (messages=1, neither ready nor unacked), and the queue's x-max-length=1 still counts it,
 * so a second publish is refused (overflow reject-publish → the broker nacks the publish).
 */
import type { LabContext } from '../../src/lab.js';
import { LabError } from '../../src/errors.js';
import { deferred, gapsMs } from '../../src/time.js';

export interface Held {
  /** the statistics sample taken during the hold */
  stats: string;
  /** what the broker did with a second publish during the hold */
  secondPublish: 'refused' | 'accepted';
  /** time between the first and the second delivery, ms */
  gapMs: number;
}

export async function holdOne(ctx: LabContext, queue: string, holdMs: number): Promise<Held> {
  const at: number[] = [];
  const returned = deferred();
  const back = deferred();
  const channel = await ctx.broker.newChannel();
  const consumer = await ctx.broker.consume(
    queue,
    (d) => {
      at.push(ctx.now());
      if (at.length === 1) {
        d.reject(true);
        returned.resolve();
      } else {
        d.ack();
        back.resolve();
      }
    },
    { prefetch: 1, channel },
  );
  await ctx.broker.sendConfirmed(queue, 'm-held', { messageId: 'm-held' });
  await ctx.within(Promise.race([returned.promise, consumer.failure]), 10_000, `the first delivery of m-held on ${queue}`);
  await ctx.checkpoint('held', { queue, note: `m-held was rejected with requeue; the queue holds it for ${holdMs} ms` });

  const sample = await ctx.mgmt.queueWhen(queue, (q) => q.messages === 1 && q.ready === 0 && q.unacked === 0, holdMs - 1000);
  const stats = sample ? `messages=${sample.messages} ready=${sample.ready} unacked=${sample.unacked}` : 'no statistics';
  let secondPublish: Held['secondPublish'] = 'accepted';
  try {
    await ctx.broker.sendConfirmed(queue, 'm-second', { messageId: 'm-second' });
  } catch (err) {
    if (!(err instanceof LabError) || !/nacked/.test(err.message)) throw err;
    secondPublish = 'refused';
  }
  ctx.log.emit('held', { queue, stats, secondPublish, status: 'sampled' });
  await ctx.within(Promise.race([back.promise, consumer.failure]), holdMs + 10_000, `m-held back on ${queue}`);
  await consumer.cancel();
  await channel.close().catch(() => {});
  return { stats, secondPublish, gapMs: gapsMs(at)[0] ?? 0 };
}
