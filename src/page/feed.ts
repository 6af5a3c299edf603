/**
 * The live feed: what the runner observes (src/page/observer.ts), kept per lab and pushed to the
 * pages as the bench's data (a lab's steps, graph and timeline), a few times a second at most;
 * and the paused checkpoint a page may release.
 */
import { DEPTH_INTERVAL_MS, DEPTH_METHOD, type DepthSample, type DepthSeries } from '../broker/depth-sampler.js';
import type { LabEvent } from '../log/events.js';
import { formatEvent } from '../log/events.js';
import type { TimelineEvent } from './html-layout.js';
import type { LabReport } from '../report/lab-report.js';
import { labTail, verdict } from './html.js';
import { benchLab, type BenchLab } from './page.js';
import type { LabStart, RunObserver } from './observer.js';

interface LabState {
  start: LabStart;
  events: TimelineEvent[];
  depths: DepthSeries;
  report?: LabReport;
  timer?: NodeJS.Timeout | undefined;
}

/** the --json form of an event (src/report/json.ts), which the page's drawing reads */
const timelineEvent = (e: LabEvent): TimelineEvent =>
  ({
    source: e.source,
    ...(e.process ? { process: e.process } : {}),
    ...e.fields,
    line: formatEvent(e),
    ...(e.view ? { view: e.view } : {}),
  }) as TimelineEvent;

const PUSH_MS = 250;

export class LiveFeed implements RunObserver {
  private readonly labs = new Map<string, LabState>();
  private waiter: { token: string; release: () => void } | null = null;
  /** the token of the checkpoint the run waits on now, if it logged one */
  private pendingToken: string | null = null;
  /**
   * a Continue for the pending checkpoint that came before the run waited on it: a page shows the
   * pause when its event is logged, the runner waits once it has taken the pause's counts (the
   * management API: a few hundred ms on a busy machine), and a click in between was refused
   */
  private releasedEarly: string | null = null;

  constructor(private readonly push: (lab: BenchLab, tail: string) => void) {}

  labStarted(info: LabStart): void {
    const queues = info.topology?.queues.map((q) => q.name) ?? [];
    this.labs.set(info.lab, {
      start: info,
      events: [],
      depths: { intervalMs: DEPTH_INTERVAL_MS, method: DEPTH_METHOD, queues, samples: [], missed: 0 },
    });
    this.schedule(info.lab, 0);
  }

  event(lab: string, e: LabEvent): void {
    const s = this.labs.get(lab);
    if (!s) return;
    s.events.push(timelineEvent(e));
    if (e.source === 'checkpoint' && e.fields.status === 'waiting') this.pendingToken = e.fields.token ?? null;
    if (e.source === 'checkpoint' && e.fields.status === 'released' && e.fields.token === this.pendingToken)
      this.pendingToken = null;
    this.schedule(lab, e.source === 'checkpoint' ? 20 : PUSH_MS);
  }

  sample(lab: string, _queues: string[], sample: DepthSample): void {
    const s = this.labs.get(lab);
    if (!s) return;
    s.depths.samples.push(sample);
    this.schedule(lab, PUSH_MS);
  }

  labEnded(report: LabReport): void {
    const s = this.labs.get(report.lab);
    if (!s) return;
    s.report = report;
    if (report.depths) s.depths = report.depths;
    this.schedule(report.lab, 0);
  }

  /** every lab's bench and tail as they stand (a page that connects now) */
  snapshot(): { lab: BenchLab; tail: string }[] {
    return [...this.labs.keys()].map((lab) => this.render(lab));
  }

  /** --step: resolves when a page releases `token`'s checkpoint (the terminal's Enter races it) */
  waitForRelease(): { released: Promise<void>; cancel: () => void } {
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    const token = this.pendingToken ?? '';
    if (token && this.releasedEarly === token) {
      this.releasedEarly = null;
      return { released: Promise.resolve(), cancel: () => {} };
    }
    this.waiter = { token, release };
    return {
      released,
      cancel: () => {
        if (this.waiter?.release === release) this.waiter = null;
      },
    };
  }

  /** a page's Continue: true when it released the checkpoint the run waits on */
  release(token: string): boolean {
    if (!this.waiter && token !== '' && token === this.pendingToken) {
      this.releasedEarly = token;
      return true;
    }
    if (!this.waiter || this.waiter.token !== token) return false;
    this.waiter.release();
    this.pendingToken = null;
    this.waiter = null;
    return true;
  }

  /** push what is still scheduled, now (the run ended) */
  flush(): void {
    for (const [lab, s] of this.labs)
      if (s.timer) {
        clearTimeout(s.timer);
        s.timer = undefined;
        const r = this.render(lab);
        this.push(r.lab, r.tail);
      }
  }

  private schedule(lab: string, ms: number): void {
    const s = this.labs.get(lab);
    if (!s || s.timer) return;
    s.timer = setTimeout(() => {
      s.timer = undefined;
      const r = this.render(lab);
      this.push(r.lab, r.tail);
    }, ms);
  }

  private render(lab: string): { lab: BenchLab; tail: string } {
    const s = this.labs.get(lab)!;
    const r = s.report;
    const bench = benchLab({
      lab,
      title: s.start.title,
      verdict: r ? verdict(r.status) : 'RUNNING',
      faults: s.start.faults,
      lines: r?.lines ?? [],
      events: s.events,
      depths: s.depths,
      topology: s.start.topology,
      descriptions: Object.fromEntries(
        s.start.checkpoints.flatMap((c) => (typeof c === 'string' || !c.description ? [] : [[c.name, c.description]])),
      ),
    });
    const checks = (r?.checks ?? []).map((c) => ({
      name: c.name,
      expected: c.expected,
      actual: c.actual,
      compare: c.compare ?? 'eq',
      pass: c.pass,
    }));
    return { lab: bench, tail: labTail({ events: s.events, window: r?.window, depths: s.depths }, checks) };
  }
}
