/**
 * Held letters count toward max-length. While phase 3's letter is held (target unbound, no ready
 * message in the source), publish to the source one confirmed message at a time until the broker
 * nacks one: a quorum queue with overflow=reject-publish refuses publishes once ready messages plus
 * held dead letters exceed max-length, checked after the enqueue that crosses it (rabbit_fifo
 * is_over_limit counts the dead-letter state: v3.10.8 and v4.3.5). With the policy's max-length 100
 * and one letter held, 100 are confirmed (99 fill it, the 100th crosses) and the 101st is nacked;
 * with nothing held it would be 101. An unreachable dead-letter target fills the source.
 * The confirmed ones are then taken off one by one (basic.get + ack: a purge would take the held
 * letter too on 4.3).
 */
import type { LabContext } from '../../src/lab.js';
import { closeChannel } from '../../src/broker/broker.js';
import { POLICY_MAX_LENGTH as MAX_LENGTH } from '../../src/broker/dead-letter.js';
import { PHASE_HEADER, RUN_HEADER, type DropNames } from './names.js';

export interface Refusal {
  /** publishes confirmed before the first nack (null: none nacked within MAX_LENGTH + 5) */
  accepted: number | null;
  /** confirmed publishes taken off again */
  removed: number;
}

export async function publishUntilRefused(ctx: LabContext, x: DropNames, runId: string): Promise<Refusal> {
  const ch = await ctx.broker.newChannel();
  let accepted = 0;
  let nacked = false;
  try {
    while (accepted < MAX_LENGTH + 5) {
      const ok = await new Promise<boolean>((resolve) =>
        ch.publish(
          '',
          x.source,
          Buffer.from('filler'),
          {
            persistent: true,
            messageId: `filler-${accepted + 1}`,
            headers: { [RUN_HEADER]: runId, [PHASE_HEADER]: 'max-length' },
          },
          (err) => resolve(!err),
        ),
      );
      if (!ok) {
        nacked = true;
        break;
      }
      accepted++;
    }
  } finally {
    await closeChannel(ch);
  }
  ctx.log.emit('producer', {
    phase: 'max-length',
    queue: x.source,
    accepted,
    nacked,
    status: nacked ? 'refused' : 'never_refused',
  });
  let removed = 0;
  for (let i = 0; i < accepted; i++) {
    const d = await ctx.broker.get(x.source);
    if (!d) break;
    d.ack();
    removed++;
  }
  return { accepted: nacked ? accepted : null, removed };
}
