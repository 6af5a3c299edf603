/**
 * --live: the run served on 127.0.0.1 (src/page/loopback.ts: the printed token, the Host, site and
 * Origin checks, errors kept to the server). GET / is the bench page, GET /events the run as
 * server-sent events (bounded: src/page/event-streams.ts), POST /continue releases a paused
 * checkpoint. Only the token's holder starts the run (its first stream) and may hold the run's
 * control: the first such page gets a key in its stream, and its Continue must carry it; when it
 * closes, control passes to the next such page. With `viewers` (--live-viewers) a page without the
 * token watches: its stream never starts the run and never gets the key. The server closes with the run.
 */
import { randomBytes } from 'node:crypto';
import { text } from '../core/text.js';
import { startLoopbackServer, refuse, type LoopbackRequest } from './loopback.js';
import { EventStreams, STREAM_LIMITS, type EventStream, type StreamLimits } from './event-streams.js';

interface LiveHandlers {
  /** the page's HTML */
  page(): string;
  /** what a page that connects now is sent first: [event name, data] */
  snapshot(): [string, unknown][];
  /** Continue for `token`: true when it released the checkpoint the run waits on */
  release(token: string): boolean;
  /** a page with the token connected (the run may be waiting for the first) */
  onConnect?(): void;
}

export interface LiveOptions {
  port: number;
  /** a view-only page and stream without the token (--live-viewers) */
  viewers?: boolean | undefined;
  /** the server's own trouble, one line each (stderr); the run goes on */
  onTrouble?: ((line: string) => void) | undefined;
  limits?: StreamLimits | undefined;
  /** the token (tests) */
  token?: string | undefined;
}

export interface LiveServer {
  port: number;
  /** the address with the token: printed in the terminal */
  url: string;
  /** the address without it (viewers, with --live-viewers) */
  viewUrl: string;
  send(event: string, data: unknown): void;
  /** tell every page the run ended, then close every connection and stop listening */
  close(): Promise<void>;
}

export async function startLiveServer(opts: LiveOptions, handlers: LiveHandlers): Promise<LiveServer> {
  const streams = new EventStreams(opts.limits ?? STREAM_LIMITS, opts.onTrouble);
  let controller: { stream: EventStream; key: string } | null = null;

  // control to `stream`, the next page with the token when it is null
  const giveControl = (stream: EventStream | undefined) => {
    controller = stream ? { stream, key: randomBytes(16).toString('hex') } : null;
    controller?.stream.send('hello', { key: controller.key });
  };

  const events = (r: LoopbackRequest) => {
    const first = handlers.snapshot();
    const stream = streams.open(r, (closed) => {
      if (controller?.stream === closed) giveControl(streams.of('owner').find((s) => s.open));
    });
    if (!stream) return;
    if (stream.access === 'owner' && !controller) giveControl(stream);
    else stream.send('hello', { key: null, viewer: stream.access === 'viewer' });
    for (const [event, data] of first) stream.send(event, data);
    if (stream.access === 'owner') handlers.onConnect?.();
  };

  const release = (r: LoopbackRequest) => {
    if (!controller || r.req.headers['x-mqlab-key'] !== controller.key)
      return refuse(r.res, 403, 'another page holds the run’s control');
    let body = '';
    r.req.on('data', (c: Buffer) => {
      body += c.toString();
      if (body.length > 4096) r.req.destroy();
    });
    r.req.on('end', () => {
      let token: string;
      try {
        token = text((JSON.parse(body) as { token?: unknown }).token);
      } catch {
        return refuse(r.res, 400, 'expected {"token": …}');
      }
      if (!handlers.release(token)) return refuse(r.res, 409, 'the run does not wait on that checkpoint');
      r.res.writeHead(204).end();
    });
  };

  const server = await startLoopbackServer(
    { port: opts.port, what: '--live', viewers: opts.viewers, onTrouble: opts.onTrouble, token: opts.token },
    (r) => {
      if (r.method === 'GET' && r.path === '/') {
        r.res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        return void r.res.end(handlers.page());
      }
      if (r.method === 'GET' && r.path === '/events') return events(r);
      if (r.method === 'POST' && r.path === '/continue' && r.access === 'owner') return release(r);
      refuse(r.res, 404, 'not found');
    },
  );

  return {
    port: server.port,
    url: server.url,
    viewUrl: server.viewUrl,
    send: (event, data) => streams.broadcast(event, data),
    async close() {
      streams.endAll('end', {});
      await server.close();
    },
  };
}
