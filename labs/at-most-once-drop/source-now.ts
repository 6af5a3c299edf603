/**
 * The source queue as the broker holds it now (Management.queueNowWithPolicy), not as its statistics
 * last sampled it: the policy its record names at the moment of the request (with that policy's
 * definition: the record's effective one on 4.3, the policy's own on 3.10), and the counts its
 * quorum queue's counters hold, which the queue's tick writes (quorum_tick_interval: 1 s on mqlab's
 * services, 5 s untuned). Nothing else lies between them and the lab: no metrics collector, no sample
 * bucket, so a count shows at most one tick late.
 *
 * A reading is as recent as the tick that wrote its counts, which the reply does not say. So the
 * lab orders readings instead: each tick overwrites the counters, so a reading showing a state
 * that the source reaches only after some step, taken after a reading that did not show it, was
 * written by a tick after that step (how unbound.ts ties its readings to each phase).
 */
import { type LabContext, type QueueStats, ticking } from '../../src/kit/index.js';
import type { DropNames } from './names.js';

/** how often a wait reads the source: a tenth of mqlab's tick, one request of ~10 ms on 4.3 */
const READ_EVERY_MS = 100;
/** three ticks of an untuned broker (5 s): a count the counters never show by then is not coming */
const READ_TIMEOUT_MS = 15_000;

const readSource = (ctx: LabContext, name: DropNames) => ctx.mgmt.queueNowWithPolicy(name.source);

/**
 * read the source until a reading satisfies `ok` (that reading), saying what it waits for every few
 * seconds; the last reading when READ_TIMEOUT_MS has passed (the caller decides what it proves).
 * `first`: the first reading, whether it satisfied `ok` or not
 */
export function sourceWhen(
  ctx: LabContext,
  name: DropNames,
  what: string,
  ok: (q: QueueStats) => boolean,
): Promise<{ reading: QueueStats | null; ok: boolean; first: QueueStats | null }> {
  return ticking(
    ctx,
    (s) => `waiting for ${what} (the quorum queue's counters refresh on its tick): ${s} s`,
    async () => {
      const end = ctx.now() + READ_TIMEOUT_MS;
      let first: QueueStats | null | undefined;
      for (;;) {
        const reading = await readSource(ctx, name);
        if (first === undefined) first = reading;
        if (reading && ok(reading)) return { reading, ok: true, first };
        if (ctx.now() >= end) return { reading, ok: false, first };
        await ctx.sleep(READ_EVERY_MS);
      }
    },
  );
}
