/**
 * Server-sent event streams with bounds: at most `owners` streams of the token's holder and
 * `viewers` of viewers at once (one more is answered 503), and a client that does not read is cut
 * — when what waits for it passes `backlogBytes`, or when it has not drained for `stallMs` — so
 * a page that stops reading costs a bounded amount of memory, never the run's.
 */
import type { Access, LoopbackRequest } from './loopback.js';
import { refuse } from './loopback.js';

export interface StreamLimits {
  owners: number;
  viewers: number;
  backlogBytes: number;
  stallMs: number;
}

export const STREAM_LIMITS: StreamLimits = { owners: 8, viewers: 32, backlogBytes: 1 << 20, stallMs: 10_000 };

export interface EventStream {
  access: Access;
  /** false once the stream is closed (by the client, by close(), or cut for not reading) */
  readonly open: boolean;
  send(event: string, data: unknown): void;
}

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export class EventStreams {
  private readonly streams = new Set<Stream>();

  constructor(
    private readonly limits: StreamLimits = STREAM_LIMITS,
    /** a client cut for not reading: one line for the server's trouble */
    private readonly onCut?: (line: string) => void,
  ) {}

  /** the streams open now */
  get size(): number {
    return this.streams.size;
  }

  /** answer `r` with an event stream; null when that kind's limit is reached (answered 503) */
  open(r: LoopbackRequest, onClose?: (s: EventStream) => void): EventStream | null {
    const same = [...this.streams].filter((s) => s.access === r.access).length;
    if (same >= (r.access === 'owner' ? this.limits.owners : this.limits.viewers)) {
      refuse(r.res, 503, `too many ${r.access === 'owner' ? 'pages' : 'viewers'} open: close one and reload`);
      return null;
    }
    r.res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    const s = new Stream(r, this.limits, (why) => this.onCut?.(why));
    this.streams.add(s);
    r.res.on('close', () => {
      s.closed();
      this.streams.delete(s);
      onClose?.(s);
    });
    return s;
  }

  /** `event` to every open stream (a viewer's too) */
  broadcast(event: string, data: unknown): void {
    const f = frame(event, data);
    for (const s of this.streams) s.write(f);
  }

  /** the streams of one kind, in the order they opened */
  of(access: Access): EventStream[] {
    return [...this.streams].filter((s) => s.access === access);
  }

  /** a last event to every stream, then end them */
  endAll(event: string, data: unknown): void {
    const f = frame(event, data);
    for (const s of this.streams) s.end(f);
    this.streams.clear();
  }
}

class Stream implements EventStream {
  readonly access: Access;
  open = true;
  private stall: NodeJS.Timeout | null = null;

  constructor(
    private readonly r: LoopbackRequest,
    private readonly limits: StreamLimits,
    private readonly onCut: (why: string) => void,
  ) {
    this.access = r.access;
    r.res.on('drain', () => this.drained());
  }

  send(event: string, data: unknown): void {
    this.write(frame(event, data));
  }

  write(f: string): void {
    if (!this.open) return;
    // what earlier pushes left waiting for the client (one push may be larger than the bound)
    if (this.r.res.writableLength > this.limits.backlogBytes)
      return this.cut(`a page that does not read was cut (${this.r.res.writableLength} bytes waiting)`);
    const room = this.r.res.write(f);
    if (!room && !this.stall)
      this.stall = setTimeout(
        () => this.cut(`a page that did not read for ${this.limits.stallMs} ms was cut`),
        this.limits.stallMs,
      ).unref();
  }

  end(f: string): void {
    if (!this.open) return;
    this.closed();
    this.r.res.end(f);
  }

  closed(): void {
    this.open = false;
    this.drained();
  }

  private drained(): void {
    if (this.stall) clearTimeout(this.stall);
    this.stall = null;
  }

  private cut(why: string): void {
    this.closed();
    this.onCut(why);
    this.r.res.destroy();
  }
}
