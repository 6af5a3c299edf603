/**
 * Held or handed back at once, told by the broker's own order, not by how long a return took.
 *
 * While the consumer (prefetch 1) holds the message, a marker is published and confirmed, so it is
 * in the queue before the return is sent. A quorum queue serves its returns before its other ready
 * messages (rabbit_fifo take_next_msg, v4.3.5: `returns` first, then `messages`), and a delayed
 * return waits in a separate tree until its ready time (return_one → should_delay → delayed_in).
 * The consumer's credit comes back with the return and the queue hands over its next message in
 * the same command (return → checkout): the message itself when it was returned at once, the
 * marker when it was held. However slow the machine, that order is the broker's.
 *
 * A held message must also come back no sooner than `min` after it was last delivered (the broker
 * is never early): held but back sooner, with the marker first, is 'requeued' (at the queue's back).
 */
import { type LabContext, closeChannel, deferred } from '../../src/kit/index.js';

export type Action = 'reject' | 'nack';
type Verdict = 'delayed' | 'immediate' | 'requeued';

export interface Judged {
  action: Action;
  verdict: Verdict;
  /** from the delivery before the return to the redelivery, ms */
  gapMs: number;
}

/**
 * one message on `queue`, returned with each action in turn, then acked; each return judged by
 * what came next (`min`: the queue's delayed-retry-min, for the 'requeued' case); `boundMs` is how
 * long the whole exchange may take
 */
export async function judgeReturns(
  ctx: LabContext,
  queue: string,
  actions: readonly Action[],
  minMs: number,
  boundMs: number,
): Promise<Judged[]> {
  const id = `m-${queue.split('.').pop()}`;
  const judged: Judged[] = [];
  let markers = 0;
  let marker: string | null = null; // a marker waiting in the queue
  let awaited: Action | null = null; // the return whose redelivery is awaited
  let markerFirst = false;
  let lastAt = 0;
  let acked = false;
  const done = deferred();
  const finish = () => {
    if (acked && marker === null) done.resolve();
  };
  const channel = await ctx.broker.newChannel();
  const consumer = await ctx.broker.consume(
    queue,
    async (m) => {
      if (m.messageId !== id) {
        m.ack(); // the marker: ahead of the message when the message was held
        marker = null;
        if (awaited) markerFirst = true;
        return finish();
      }
      const at = ctx.now();
      if (awaited) {
        const gapMs = Math.round(at - lastAt);
        const verdict = !markerFirst ? 'immediate' : gapMs >= minMs ? 'delayed' : 'requeued';
        judged.push({ action: awaited, verdict, gapMs });
        ctx.log.emit('consumer', { messageId: id, queue, action: awaited, verdict, gapMs, status: 'judged' });
        awaited = null;
        markerFirst = false;
      }
      lastAt = at;
      const action = actions[judged.length];
      if (!action) {
        m.ack();
        acked = true;
        return finish();
      }
      if (marker === null) {
        marker = `mark-${queue.split('.').pop()}-${++markers}`;
        await ctx.broker.sendConfirmed(queue, marker, { messageId: marker });
      }
      awaited = action;
      if (action === 'reject') m.reject(true);
      else m.nack(true);
    },
    { prefetch: 1, channel },
  );
  await ctx.broker.sendConfirmed(queue, id, { messageId: id });
  await ctx.within(
    Promise.race([done.promise, consumer.failure]),
    boundMs,
    `${actions.length + 1} deliveries of ${id} on ${queue}, each return's marker with them`,
  );
  await consumer.cancel();
  await closeChannel(channel);
  return judged;
}

const count = (v: unknown) => (typeof v === 'number' ? v : Number(v ?? 0) || 0);

/**
 * max defaults to min, told by order: X is rejected twice (x-delivery-count 2), then a fresh Y is
 * published; both are nacked at once (basic.nack multiple: one return, one timestamp). A nack leaves
 * the count as it is, so X waits min(min × 2, max) and Y min(min × 1, max). With max = min both wait
 * min and come back in queue order, X first (the delayed tree is ordered by ready time, then by
 * the message's log index: rabbit_fifo delayed_in, v4.3.5); with max ≥ 2 × min X waits longer and
 * Y comes first. Returns the x-delivery-count of the two redeliveries in the order they came.
 */
export async function returnedTogether(
  ctx: LabContext,
  queue: string,
  boundMs: number,
): Promise<{ order: number[]; gapsMs: number[] }> {
  const x = `m-${queue.split('.').pop()}`;
  const y = `${x}-fresh`;
  const at: number[] = [];
  const order: number[] = [];
  let nacked = false;
  const done = deferred();
  const channel = await ctx.broker.newChannel();
  const consumer = await ctx.broker.consume(
    queue,
    async (m) => {
      if (!nacked && m.messageId === x) {
        at.push(ctx.now());
        if (at.length < 3) return m.reject(true);
        // x-delivery-count 2 now: hold X, bring Y beside it (prefetch 2)
        return ctx.broker.sendConfirmed(queue, y, { messageId: y });
      }
      if (!nacked) {
        nacked = true; // Y, with X still held: both back in one nack
        return channel.nack(m.raw, true, true);
      }
      if (m.messageId === x) at.push(ctx.now());
      order.push(count(m.headers['x-delivery-count']));
      m.ack();
      if (order.length === 2) done.resolve();
    },
    { prefetch: 2, channel },
  );
  await ctx.broker.sendConfirmed(queue, x, { messageId: x });
  await ctx.within(
    Promise.race([done.promise, consumer.failure]),
    boundMs,
    `${x} rejected twice, then ${x} and ${y} nacked together and back on ${queue}`,
  );
  await consumer.cancel();
  await closeChannel(channel);
  return { order, gapsMs: at.slice(1).map((t, i) => Math.round(t - at[i]!)) };
}
