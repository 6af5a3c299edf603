/**
 * While a returned message waits out its delay it is still in the queue: with no consumer attached,
 * the management statistics show it (messages=1, neither ready nor unacked), and the queue's
 * x-max-length=1 still counts it. A quorum queue with overflow reject-publish refuses a publish once
 * it is over its limit (measured on 3.10.8 and 4.3.6: with max-length 1, a second message is accepted
 * and a third refused), so with the held message counted: second accepted, third refused; were it not
 * counted, both would be accepted.
 */
import { type LabContext, LabError, Nacked, deferred } from '../../src/kit/index.js';

interface Held {
  /** the statistics sample taken during the hold, before anything else was published */
  stats: string;
  /** what the broker did with two more publishes during the hold */
  publishes: string;
  /** time between the held message's first and second delivery, ms */
  gapMs: number;
}

export async function holdOne(ctx: LabContext, queue: string, holdMs: number): Promise<Held> {
  const at: number[] = [];
  const returned = deferred();
  const back = deferred();
  let extras = 0;
  let acceptedExtras = Number.POSITIVE_INFINITY; // known after the two publishes
  const drained = () => {
    if (at.length >= 2 && extras >= acceptedExtras) back.resolve();
  };
  const onDelivery = (d: { messageId: string | undefined; ack(): void; reject(requeue: boolean): void }) => {
    if (d.messageId !== 'm-held') {
      // the extra publishes: taken away
      d.ack();
      extras += 1;
      drained();
      return;
    }
    at.push(ctx.now());
    if (at.length === 1) {
      d.reject(true);
      returned.resolve();
    } else {
      d.ack();
      drained();
    }
  };
  const first = await ctx.broker.consume(queue, onDelivery, { prefetch: 1, channel: await ctx.broker.newChannel() });
  await ctx.broker.sendConfirmed(queue, 'm-held', { messageId: 'm-held' });
  await ctx.within(Promise.race([returned.promise, first.failure]), 10_000, `the first delivery of m-held on ${queue}`);
  await first.cancel(); // nobody consumes during the hold: what the queue holds stays there

  // statistics are samples (every second, after the queue's own tick): wait for one taken after the reject,
  // leaving the last 800 ms of the hold for the two publishes below. Before the first delivery the queue
  // showed messages=1 ready=1 unacked=0, so only ready=0 with messages=1 marks a sample as later than the
  // reject (a wait for messages=1 unacked=0 alone took that stale sample on a busy machine and failed a
  // correct run). A message that was not held stays ready: no sample matches, the last one says ready=1.
  // a look every half second: two per sample (collect_statistics_interval 1 s on mqlab's services), not four
  const sample = await ctx.mgmt.queueWhen(
    queue,
    (q) => q.messages === 1 && q.ready === 0 && q.unacked === 0,
    holdMs - 800,
    500,
  );
  const stats = sample
    ? `messages=${sample.messages} ready=${sample.ready} unacked=${sample.unacked}`
    : 'no statistics';
  const publishes: string[] = [];
  for (const id of ['m-second', 'm-third']) publishes.push(`${id.slice(2)}=${await accepted(ctx, queue, id)}`);
  ctx.log.emit('held', { queue, stats, publishes, status: 'sampled' });
  // the pause after the readings: a pause (--step) longer than the hold cannot change what they saw
  await ctx.checkpoint('held', {
    queue,
    note: `m-held was rejected with requeue; the queue held it for ${holdMs} ms: ${stats}, ${publishes.join(' ')}`,
  });
  // the second consumer waits for m-held and the accepted publishes: m-held may come first (a late subscribe on a busy machine)
  acceptedExtras = publishes.filter((p) => p.endsWith('=accepted')).length;

  const again = await ctx.broker.consume(queue, onDelivery, { prefetch: 1, channel: await ctx.broker.newChannel() });
  await ctx.within(Promise.race([back.promise, again.failure]), holdMs + 10_000, `m-held back on ${queue}`);
  await again.cancel();
  const [firstAt, secondAt] = at;
  if (firstAt === undefined || secondAt === undefined)
    throw new LabError(`m-held was delivered ${at.length} time(s) on ${queue}, expected 2`);
  return { stats, publishes: publishes.join(' '), gapMs: Math.round(secondAt - firstAt) };
}

async function accepted(ctx: LabContext, queue: string, id: string): Promise<'accepted' | 'refused'> {
  try {
    await ctx.broker.sendConfirmed(queue, id, { messageId: id });
    return 'accepted';
  } catch (err) {
    if (!(err instanceof Nacked)) throw err;
    return 'refused';
  }
}
