import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startLiveServer, type LiveServer } from './server.js';

type Reply = { status: number; body: string };
function request(
  port: number,
  opts: { method?: string; path?: string; host?: string; headers?: Record<string, string>; body?: string },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent: false,
        host: '127.0.0.1',
        port,
        method: opts.method ?? 'GET',
        path: opts.path ?? '/',
        headers: { host: opts.host ?? `127.0.0.1:${port}`, ...opts.headers },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** the first `hello` frame of an event stream, and the request to close it */
function events(
  port: number,
): Promise<{ key: string | null; req: http.ClientRequest; frames: string[]; ended: Promise<void> }> {
  return new Promise((resolve) => {
    const frames: string[] = [];
    let end = () => {};
    const ended = new Promise<void>((r) => (end = r));
    const req = http.get(
      { host: '127.0.0.1', port, path: '/events', headers: { host: `localhost:${port}` } },
      (res) => {
        res.on('end', end);
        res.on('close', end);
        res.on('data', (c: Buffer) => {
          frames.push(c.toString());
          const m = /event: hello\ndata: (.*)\n/.exec(frames.join(''));
          if (m) resolve({ key: (JSON.parse(m[1]!) as { key: string }).key, req, frames, ended });
        });
      },
    );
    req.on('error', () => {});
  });
}

describe('the live server', () => {
  let server: LiveServer | undefined;
  const released: string[] = [];
  afterEach(async () => server?.close());
  const start = async (port = 0) =>
    (server = await startLiveServer(port, {
      page: () => '<p>bench</p>',
      snapshot: () => [['lab', { lab: 'x' }]],
      release: (t) => (t === 'tok' ? (released.push(t), true) : false),
    }));

  it('serves the page to 127.0.0.1 and localhost only by Host header', async () => {
    const s = await start();
    expect(s.url).toBe(`http://127.0.0.1:${s.port}/`);
    expect((await request(s.port, {})).body).toBe('<p>bench</p>');
    expect((await request(s.port, { host: `localhost:${s.port}` })).status).toBe(200);
    expect((await request(s.port, { host: `attacker.example:${s.port}` })).status).toBe(403);
    expect((await request(s.port, { host: '127.0.0.1:1' })).status).toBe(403);
  });

  it('the first page holds control: only its key releases, only the waited token, only from its origin', async () => {
    const s = await start();
    const first = await events(s.port);
    const second = await events(s.port);
    expect(first.key).toMatch(/^[0-9a-f]{32}$/);
    expect(second.key).toBeNull();
    expect(first.frames.join('')).toContain('event: lab');
    const post = (key: string, token: string, origin = `http://127.0.0.1:${s.port}`) =>
      request(s.port, {
        method: 'POST',
        path: '/continue',
        headers: { 'x-mqlab-key': key, origin, 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
    expect((await post('wrong', 'tok')).status).toBe(403);
    expect((await post(first.key!, 'tok', 'http://evil.example')).status).toBe(403);
    expect((await post(first.key!, 'other')).status).toBe(409);
    expect((await post(first.key!, 'tok')).status).toBe(204);
    expect(released).toEqual(['tok']);
    first.req.destroy();
    second.req.destroy();
  });

  it('a port in use is a usage error naming it; close ends the streams and the listener', async () => {
    const s = await start();
    await expect(startLiveServer(s.port, { page: () => '', snapshot: () => [], release: () => false })).rejects.toThrow(
      `--live: port ${s.port} on 127.0.0.1 is in use`,
    );
    const stream = await events(s.port);
    await s.close();
    await stream.ended;
    expect(stream.frames.join('')).toContain('event: end');
    await expect(request(s.port, {})).rejects.toThrow(/ECONNREFUSED/);
    server = undefined;
  });
});
