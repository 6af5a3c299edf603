/**
 * --live: the run served on 127.0.0.1 with Node's own http. GET / is the bench page, GET /events
 * the run as server-sent events, POST /continue releases a paused checkpoint. No other host can
 * reach it: it binds 127.0.0.1 only, and a request whose Host (or Origin) is not this address and
 * port is refused (a web page elsewhere cannot rebind a name to it). The first page to connect
 * holds the run's control (a key in its stream); the others watch. The server closes with the run.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../core/errors.js';
import { text } from '../core/text.js';

export interface LiveHandlers {
  /** the page's HTML */
  page(): string;
  /** what a page that connects now is sent first: [event name, data] */
  snapshot(): [string, unknown][];
  /** Continue for `token`: true when it released the checkpoint the run waits on */
  release(token: string): boolean;
  /** a page connected (the run may be waiting for the first) */
  onConnect?(): void;
}

interface Client {
  res: http.ServerResponse;
  key: string | null;
}

export interface LiveServer {
  port: number;
  url: string;
  send(event: string, data: unknown): void;
  /** tell every page the run ended, then close every connection and stop listening */
  close(): Promise<void>;
}

export async function startLiveServer(port: number, handlers: LiveHandlers): Promise<LiveServer> {
  const clients = new Set<Client>();
  let controller: Client | null = null;
  let bound = port;
  const allowed = () => new Set([`127.0.0.1:${bound}`, `localhost:${bound}`]);
  const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

  const server = http.createServer((req, res) => {
    if (!allowed().has(req.headers.host ?? '')) return refuse(res, 403, 'mqlab live serves 127.0.0.1 only');
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      return void res.end(handlers.page());
    }
    if (req.method === 'GET' && url.pathname === '/events') {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      const client: Client = { res, key: null };
      clients.add(client);
      if (!controller) {
        controller = client;
        client.key = randomBytes(16).toString('hex');
      }
      res.write(frame('hello', { key: client.key }));
      for (const [event, data] of handlers.snapshot()) res.write(frame(event, data));
      req.on('close', () => {
        clients.delete(client);
        if (controller !== client) return;
        // control passes to the page that connected next
        controller = [...clients][0] ?? null;
        if (controller) {
          controller.key = randomBytes(16).toString('hex');
          controller.res.write(frame('hello', { key: controller.key }));
        }
      });
      handlers.onConnect?.();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/continue') {
      const origin = req.headers.origin;
      if (origin !== undefined && !allowed().has(origin.replace(/^http:\/\//, '')))
        return refuse(res, 403, 'not from the bench page');
      if (!controller?.key || req.headers['x-mqlab-key'] !== controller.key)
        return refuse(res, 403, 'another page holds the run’s control');
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
        if (body.length > 4096) req.destroy();
      });
      req.on('end', () => {
        let token: string;
        try {
          token = text((JSON.parse(body) as { token?: unknown }).token);
        } catch {
          return refuse(res, 400, 'expected {"token": …}');
        }
        if (!handlers.release(token)) return refuse(res, 409, 'the run does not wait on that checkpoint');
        res.writeHead(204).end();
      });
      return;
    }
    refuse(res, 404, 'not found');
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE')
        reject(
          new UsageError(
            `--live: port ${port} on 127.0.0.1 is in use`,
            'choose another with --port N, or --port 0 for any free port',
          ),
        );
      else if (err.code === 'EACCES')
        reject(
          new UsageError(
            `--live: port ${port} on 127.0.0.1 is not allowed for this user`,
            'choose a port above 1023 with --port N, or --port 0',
          ),
        );
      else reject(err);
    });
    server.listen(port, '127.0.0.1', () => resolve());
  });
  bound = (server.address() as AddressInfo).port;

  return {
    port: bound,
    url: `http://127.0.0.1:${bound}/`,
    send(event, data) {
      const f = frame(event, data);
      for (const c of clients) c.res.write(f);
    },
    async close() {
      for (const c of clients) c.res.end(frame('end', {}));
      clients.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // a page's keep-alive connection must not hold the run's exit: a moment to read `end`, then cut
        setTimeout(() => server.closeAllConnections(), 200).unref();
      });
    },
  };
}

function refuse(res: http.ServerResponse, code: number, why: string): void {
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8' }).end(why + '\n');
}
