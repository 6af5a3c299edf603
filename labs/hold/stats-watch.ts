/**
 * The source queue as the broker holds it (Management.queueNow), read in the background while the
 * experiment runs, each reading with the time it was read. The policy comes from the queue's record,
 * at once; the counts from the quorum queue's counters, which its tick writes (1 s on mqlab's
 * services, 5 s on an untuned broker), so the lab never waits for them on the way: it keeps what they
 * showed and decides afterwards (verdicts.ts) whether they showed the held letter, or refreshed too
 * slowly to show it in time.
 *
 * One reading at a time, each sent after the previous answer: a later reading never shows an older
 * tick than an earlier one (verdicts.ts relies on it).
 */
import type { Management, QueueStats } from '../../src/kit/index.js';

/** between readings while nobody waits for one */
const EVERY_MS = 250;
/** between readings while the lab waits for one (until): the tick shows that much sooner */
const CLOSE_MS = 50;

export interface Sample {
  /** ctx.now() when the sample was read */
  at: number;
  stats: QueueStats;
}

export class StatsWatch {
  readonly samples: Sample[] = [];
  private stopped = false;
  private everyMs = EVERY_MS;
  /** resolves the pause between two readings early */
  private hurry: (() => void) | null = null;
  /** wakes an `until` when a sample arrives */
  private wake: (() => void) | null = null;
  /** `next` callers: each told of every sample from its call on, undefined once stopped */
  private readonly listeners = new Set<(s: Sample | undefined) => void>();
  private readonly loop: Promise<void>;

  constructor(
    private readonly mgmt: Management,
    private readonly queue: string,
    private readonly now: () => number,
    /** the run's end (ctx.ended): the watch stops with it, should the lab not have stopped it */
    ended?: AbortSignal,
  ) {
    this.loop = this.run();
    ended?.addEventListener('abort', () => this.stop(), { once: true });
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const stats = await this.mgmt.queueNow(this.queue).catch(() => null);
      if (stats && !this.stopped) {
        const sample = { at: this.now(), stats };
        this.samples.push(sample);
        for (const l of this.listeners) l(sample);
      }
      this.wake?.();
      if (!this.stopped)
        await new Promise<void>((r) => {
          const t = setTimeout(r, this.everyMs).unref();
          this.hurry = () => (clearTimeout(t), r());
        });
      this.hurry = null;
    }
  }

  /** the first sample read at or after `since` that satisfies ok */
  first(ok: (s: QueueStats) => boolean, since = -Infinity): Sample | undefined {
    return this.samples.find((s) => s.at >= since && ok(s.stats));
  }

  /**
   * wait until a sample read at or after `since` satisfies ok, at most ms, reading every CLOSE_MS
   * meanwhile; that sample or undefined
   */
  async until(ok: (s: QueueStats) => boolean, since: number, ms: number): Promise<Sample | undefined> {
    const end = this.now() + ms;
    this.everyMs = CLOSE_MS;
    this.hurry?.();
    try {
      for (;;) {
        const hit = this.first(ok, since);
        if (hit || this.now() >= end || this.stopped) return hit;
        await new Promise<void>((r) => {
          const t = setTimeout(r, Math.max(1, end - this.now())).unref();
          this.wake = () => (clearTimeout(t), r());
        });
      }
    } finally {
      this.wake = null;
      this.everyMs = EVERY_MS;
    }
  }

  /**
   * the first sample read from now on that satisfies ok, at the pace the watch reads (undefined once it
   * stops): a watch in the background, e.g. for the policy cleared from outside while the lab waits
   */
  next(ok: (s: QueueStats) => boolean): Promise<Sample | undefined> {
    if (this.stopped) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const l = (s: Sample | undefined) => {
        if (s && !ok(s.stats)) return;
        this.listeners.delete(l);
        resolve(s);
      };
      this.listeners.add(l);
    });
  }

  last(): Sample | undefined {
    return this.samples.at(-1);
  }

  /** stop sampling; a request still in flight is not waited for (its answer is dropped) */
  stop(): void {
    this.stopped = true;
    for (const l of this.listeners) l(undefined);
    this.wake?.();
    this.hurry?.();
    this.loop.catch(() => {});
  }
}
