/**
 * Held letters count toward max-length. While phase 3's letter is held (target unbound, no ready
 * message in the source), publish confirmed messages to the source until the broker nacks one
 * (near the limit one at a time, see below): a quorum queue with overflow=reject-publish refuses publishes once ready messages plus
 * held dead letters exceed max-length (rabbit_fifo is_over_limit counts the dead-letter state:
 * v3.10.8 and v4.3.5). With the policy's max-length 100 and one letter held, 100 are confirmed and the
 * 101st is nacked; with nothing held it would be 101. An unreachable dead-letter target fills the source.
 *
 * Where the count is decided: the first publish on a channel registers it with the queue, and that
 * registration is answered in order with every enqueue before it (rabbit_fifo_client enqueue,
 * register_enqueuer; v3.10.8 and v4.3.5). On one channel the refusal comes later, as a message the
 * queue sends once an enqueue crossed the limit (evaluate_limit), so one more publish can pass under
 * load (seen once on 4.3.6: 101 accepted with a letter held). So the source is filled on one channel to
 * FILL_BELOW short of the limit, where nothing can be refused (those publishes go out together and
 * their confirms are awaited together), and every publish after that goes on a channel of its own,
 * after the one before it was confirmed.
 * The confirmed ones are then taken off by a consumer, each acked (a purge would take the held
 * letter too on 4.3).
 */
import {
  type LabContext,
  closeChannel,
  POLICY_MAX_LENGTH as MAX_LENGTH,
  deferred,
  LabError,
} from '../../src/kit/index.js';
import type { ConfirmChannel } from 'amqplib';
import { PHASE_HEADER, RUN_HEADER, type DropNames } from './names.js';

export interface Refusal {
  /** publishes confirmed before the first nack (null: none nacked within MAX_LENGTH + FILL_BELOW) */
  accepted: number | null;
  /** confirmed publishes taken off again */
  removed: number;
}

/** publishes to fill on one channel: the source stays this far below max-length, so none is refused there */
const FILL_BELOW = 5;
/** how long the confirmed publishes may take to come back to the consumer that takes them off */
const TAKE_OFF_MS = 10_000;

export async function publishUntilRefused(ctx: LabContext, name: DropNames, runId: string): Promise<Refusal> {
  const publish = (ch: ConfirmChannel, n: number) =>
    new Promise<boolean>((resolve) =>
      ch.publish(
        '',
        name.source,
        Buffer.from('filler'),
        {
          persistent: true,
          messageId: `filler-${n}`,
          headers: { [RUN_HEADER]: runId, [PHASE_HEADER]: 'max-length' },
        },
        (err) => resolve(!err),
      ),
    );
  // the fill: FILL_BELOW short of the limit, where nothing is refused, so its publishes need not wait for each other
  const fill = await ctx.broker.newChannel();
  let confirmed: boolean[];
  try {
    confirmed = await Promise.all(Array.from({ length: MAX_LENGTH - FILL_BELOW }, (_, i) => publish(fill, i + 1)));
  } finally {
    await closeChannel(fill);
  }
  const firstNack = confirmed.indexOf(false);
  let accepted = firstNack < 0 ? confirmed.length : firstNack;
  let nacked = firstNack >= 0;
  let ready = confirmed.filter(Boolean).length;
  while (!nacked && accepted < MAX_LENGTH + FILL_BELOW) {
    const ch = await ctx.broker.newChannel();
    try {
      if (await publish(ch, accepted + 1)) {
        accepted++;
        ready++;
      } else nacked = true;
    } finally {
      await closeChannel(ch);
    }
  }
  ctx.log.emit('producer', {
    phase: 'max-length',
    queue: name.source,
    accepted,
    nacked,
    status: nacked ? 'refused' : 'never_refused',
  });
  const removed = await takeOff(ctx, name, ready);
  return { accepted: nacked ? accepted : null, removed };
}

/**
 * take `count` ready messages off the source, acked one by one, through one consumer with room for
 * all of them (no round trip each, as basic.get would need). A held letter is never delivered to a
 * consumer, so it stays; a purge would take it on 4.3
 */
async function takeOff(ctx: LabContext, name: DropNames, count: number): Promise<number> {
  if (count === 0) return 0;
  const ch = await ctx.broker.newChannel();
  let removed = 0;
  const all = deferred<void>();
  try {
    const consumer = await ctx.broker.consume(
      name.source,
      (m) => {
        m.ack();
        if (++removed === count) all.resolve();
      },
      { prefetch: count, channel: ch },
    );
    await ctx
      .within(
        Promise.race([all.promise, consumer.failure]),
        TAKE_OFF_MS,
        `the ${count} messages confirmed to ${name.source}`,
      )
      .catch((e) => {
        if (!(e instanceof LabError)) throw e; // fewer taken off: reported by fillersRemoved
      });
    await consumer.cancel();
  } finally {
    await closeChannel(ch);
  }
  return removed;
}
