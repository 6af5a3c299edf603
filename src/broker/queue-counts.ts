/**
 * Ready, unacked and held per queue, at one moment (a checkpoint): ready from a passive
 * queue.declare (what the broker says now), unacked and held from the management API's queue
 * statistics, which the broker samples every collect_statistics_interval (1 s on the services
 * mqlab starts, 5 s by default). held = messages − ready − unacked of one sample.
 * Measured on RabbitMQ 4.3.6 (mqlab's chroot services): a consumer's first unacked delivery showed
 * in a quorum queue's statistics 1.7 s after basic.consume; a sample's one-second bucket (its
 * timestamp is the bucket's end) keeps being overwritten until the bucket is over.
 *
 * A quorum queue's counts reach the statistics on its own tick (quorum_tick_interval: 1 s on mqlab's
 * services, 5 s by default), so a sample can be one tick plus one interval old. `fresh`: wait (at most
 * FRESH_BOUND_MS) for a sample three one-second buckets after the one current when asked (taken at
 * least 2 s after the pause began) — which a paused run (--step) can afford; otherwise the latest.
 */
import type { Broker } from './broker.js';
import type { Management, QueueStats } from './management.js';
import { heldOf, type QueueCounts } from '../core/checkpoint-view.js';

/** beyond a default broker's 5 s statistics interval */
const FRESH_BOUND_MS = 8000;

/** fresh: a sample taken after the call began; latest: the last one; none: ready only (unacked, held null) */
export type SampleMode = 'fresh' | 'latest' | 'none';

export async function queueCounts(
  broker: Broker,
  mgmt: Management,
  queues: readonly string[],
  mode: SampleMode = 'latest',
): Promise<QueueCounts[]> {
  return Promise.all(
    queues.map(async (queue) => {
      const [ready, sample] = await Promise.all([
        broker.depth(queue).catch(() => null),
        mode === 'none' ? null : sampleOf(mgmt, queue, mode === 'fresh').catch(() => null),
      ]);
      return { queue, ready, unacked: sample ? sample.unacked : null, held: sample ? heldOf(sample) : null };
    }),
  );
}

/** the first sample three buckets after the one current when asked (or the latest, not fresh) */
async function sampleOf(mgmt: Management, queue: string, fresh: boolean): Promise<QueueStats | null> {
  const first = await mgmt.queueSample(queue);
  if (!fresh || first?.sampledBy === undefined) return first;
  const end = Date.now() + FRESH_BOUND_MS;
  let last = first;
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, 200));
    last = (await mgmt.queueSample(queue)) ?? last;
    if ((last.sampledBy ?? 0) >= first.sampledBy + 3000) return last;
  }
  return last;
}
