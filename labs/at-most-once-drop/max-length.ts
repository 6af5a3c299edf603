/**
 * Held letters count toward max-length. While phase 3's letter is held (target unbound, no ready
 * message in the source), publish to the source one confirmed message at a time until the broker
 * nacks one: a quorum queue with overflow=reject-publish refuses publishes once ready messages plus
 * held dead letters exceed max-length (rabbit_fifo is_over_limit counts the dead-letter state:
 * v3.10.8 and v4.3.5). With the policy's max-length 100 and one letter held, 100 are confirmed and the
 * 101st is nacked; with nothing held it would be 101. An unreachable dead-letter target fills the source.
 *
 * Where the count is decided: the first publish on a channel registers it with the queue, and that
 * registration is answered in order with every enqueue before it (rabbit_fifo_client enqueue,
 * register_enqueuer; v3.10.8 and v4.3.5). On one channel the refusal comes later, as a message the
 * queue sends once an enqueue crossed the limit (evaluate_limit), so one more publish can pass under
 * load (seen once on 4.3.6: 101 accepted with a letter held). So the source is filled on one channel to
 * FILL_BELOW short of the limit, where nothing can be refused, and every publish after that goes on a
 * channel of its own.
 * The confirmed ones are then taken off one by one (basic.get + ack: a purge would take the held
 * letter too on 4.3).
 */
import type { LabContext } from '../../src/lab.js';
import type { ConfirmChannel } from 'amqplib';
import { closeChannel } from '../../src/broker/broker.js';
import { POLICY_MAX_LENGTH as MAX_LENGTH } from '../../src/broker/dead-letter.js';
import { PHASE_HEADER, RUN_HEADER, type DropNames } from './names.js';

export interface Refusal {
  /** publishes confirmed before the first nack (null: none nacked within MAX_LENGTH + FILL_BELOW) */
  accepted: number | null;
  /** confirmed publishes taken off again */
  removed: number;
}

/** publishes to fill on one channel: the source stays this far below max-length, so none is refused there */
const FILL_BELOW = 5;

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
  let accepted = 0;
  let nacked = false;
  const fill = await ctx.broker.newChannel();
  try {
    while (accepted < MAX_LENGTH - FILL_BELOW && !nacked) {
      if (await publish(fill, accepted + 1)) accepted++;
      else nacked = true;
    }
  } finally {
    await closeChannel(fill);
  }
  while (!nacked && accepted < MAX_LENGTH + FILL_BELOW) {
    const ch = await ctx.broker.newChannel();
    try {
      if (await publish(ch, accepted + 1)) accepted++;
      else nacked = true;
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
  let removed = 0;
  for (let i = 0; i < accepted; i++) {
    const m = await ctx.broker.get(name.source);
    if (!m) break;
    m.ack();
    removed++;
  }
  return { accepted: nacked ? accepted : null, removed };
}
