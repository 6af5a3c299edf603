import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startLiveServer, type LiveOptions, type LiveServer } from './server.js';

type Reply = { status: number; body: string; headers: http.IncomingHttpHeaders };
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
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** the first `hello` frame of an event stream (or the refusal's status), and the request to close it */
function events(
  port: number,
  headers: Record<string, string>,
): Promise<{ status: number; key: string | null; req: http.ClientRequest; frames: string[]; ended: Promise<void> }> {
  return new Promise((resolve) => {
    const frames: string[] = [];
    let end = () => {};
    const ended = new Promise<void>((r) => (end = r));
    const req = http.get(
      { host: '127.0.0.1', port, path: '/events', headers: { host: `localhost:${port}`, ...headers } },
      (res) => {
        res.on('end', end);
        res.on('close', end);
        if (res.statusCode !== 200) return resolve({ status: res.statusCode ?? 0, key: null, req, frames, ended });
        res.on('data', (c: Buffer) => {
          frames.push(c.toString());
          const m = /event: hello\ndata: (.*)\n/.exec(frames.join(''));
          if (m) resolve({ status: 200, key: (JSON.parse(m[1]!) as { key: string }).key, req, frames, ended });
        });
      },
    );
    req.on('error', () => {});
  });
}

/** bytes sent as they are, the first line of the answer (or '' when the connection closed without one) */
const raw = (port: number, bytes: string) =>
  new Promise<string>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(bytes));
    let got = '';
    s.on('data', (b) => (got += b.toString()));
    s.on('close', () => resolve(got.split('\r\n')[0] ?? ''));
    s.on('error', () => {});
  });

const TOKEN = 'f'.repeat(32);
const withToken = { authorization: `token ${TOKEN}` };

describe('the live server', () => {
  let server: LiveServer | undefined;
  const released: string[] = [];
  const connects: number[] = [];
  const trouble: string[] = [];
  afterEach(async () => {
    await server?.close();
    server = undefined;
    connects.length = 0;
    trouble.length = 0;
  });
  const start = async (
    opts: Partial<LiveOptions> = {},
    snapshot: () => [string, unknown][] = () => [['lab', { lab: 'x' }]],
  ) =>
    (server = await startLiveServer(
      { port: 0, token: TOKEN, onTrouble: (l) => trouble.push(l), ...opts },
      {
        page: () => '<p>bench</p>',
        snapshot,
        release: (t) => (t === 'tok' ? (released.push(t), true) : false),
        onConnect: () => connects.push(1),
      },
    ));

  it('prints an address with a random 128-bit token; without it every request is refused and the run does not start', async () => {
    const plain = await startLiveServer({ port: 0 }, { page: () => '', snapshot: () => [], release: () => false });
    const other = await startLiveServer({ port: 0 }, { page: () => '', snapshot: () => [], release: () => false });
    expect(plain.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${plain.port}/\\?token=[0-9a-f]{32}$`));
    expect(plain.url.split('=')[1]).not.toBe(other.url.split('=')[1]);
    await plain.close();
    await other.close();

    const s = await start();
    const page = await request(s.port, {});
    expect(page.status).toBe(403);
    expect(page.body).toMatch(/needs the token mqlab printed/);
    expect((await request(s.port, { path: '/?token=' + 'e'.repeat(32) })).status).toBe(403);
    const stream = await events(s.port, {});
    expect(stream.status).toBe(403);
    expect(connects).toEqual([]); // the run waits on
    const post = await request(s.port, {
      method: 'POST',
      path: '/continue',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: 'tok' }),
    });
    expect(post.status).toBe(403);
  });

  it('the printed address serves the page and sets an HttpOnly, SameSite=Strict cookie of this port that lets the page in', async () => {
    const s = await start();
    const first = await request(s.port, { path: `/?token=${TOKEN}` });
    expect(first.status).toBe(200);
    expect(first.body).toBe('<p>bench</p>');
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toBe(`mqlab-token-${s.port}=${TOKEN}; HttpOnly; SameSite=Strict; Path=/`);
    const again = await request(s.port, { headers: { cookie: `other=1; mqlab-token-${s.port}=${TOKEN}` } });
    expect(again.status).toBe(200);
    // another port's cookie is not this one's
    expect((await request(s.port, { headers: { cookie: `mqlab-token-1=${TOKEN}` } })).status).toBe(403);
  });

  it('serves 127.0.0.1 and localhost only by Host header, and no request from another site or origin', async () => {
    const s = await start();
    expect((await request(s.port, { headers: withToken })).body).toBe('<p>bench</p>');
    expect((await request(s.port, { host: `localhost:${s.port}`, headers: withToken })).status).toBe(200);
    expect((await request(s.port, { host: `attacker.example:${s.port}`, headers: withToken })).status).toBe(403);
    // a loopback name on another port: the local end of a tunnel (ssh -L 9000:127.0.0.1:<port>) is let in
    expect((await request(s.port, { host: '127.0.0.1:9000', headers: withToken })).status).toBe(200);
    expect((await request(s.port, { host: 'localhost:9000', headers: withToken })).status).toBe(200);
    expect((await request(s.port, { host: '127.0.0.1.attacker.example:9000', headers: withToken })).status).toBe(403);
    // through the tunnel the page's own requests come from its local origin; another port's page does not
    const tunnel = { cookie: `mqlab-token-${s.port}=${TOKEN}`, 'sec-fetch-site': 'same-origin' };
    const through = await events(s.port, { ...tunnel, host: '127.0.0.1:9000', origin: 'http://127.0.0.1:9000' });
    expect(through.status).toBe(200);
    through.req.destroy();
    expect((await events(s.port, { ...tunnel, host: '127.0.0.1:9000', origin: 'http://127.0.0.1:9001' })).status).toBe(
      403,
    );
    const cookie = { cookie: `mqlab-token-${s.port}=${TOKEN}` };
    // the cookie goes with a request another site's page makes (a same-site port on 127.0.0.1 too): refused
    for (const site of ['cross-site', 'same-site'])
      expect((await events(s.port, { ...cookie, 'sec-fetch-site': site })).status).toBe(403);
    expect((await events(s.port, { ...cookie, origin: 'http://127.0.0.1:1' })).status).toBe(403);
    const own = await events(s.port, {
      ...cookie,
      'sec-fetch-site': 'same-origin',
      origin: `http://localhost:${s.port}`,
    });
    expect(own.status).toBe(200);
    own.req.destroy();
  });

  it('the first page with the token holds control: only its key releases, only the waited token, only from its origin', async () => {
    const s = await start();
    const first = await events(s.port, withToken);
    const second = await events(s.port, withToken);
    expect(first.key).toMatch(/^[0-9a-f]{32}$/);
    expect(second.key).toBeNull();
    expect(connects).toHaveLength(2);
    expect(first.frames.join('')).toContain('event: lab');
    const post = (key: string, token: string, origin = `http://127.0.0.1:${s.port}`) =>
      request(s.port, {
        method: 'POST',
        path: '/continue',
        headers: { ...withToken, 'x-mqlab-key': key, origin, 'content-type': 'application/json' },
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

  it('--live-viewers: a page without the token watches (no key, no start, no Continue); without it, no viewer', async () => {
    const s = await start({ viewers: true });
    expect((await request(s.port, {})).status).toBe(200);
    const viewer = await events(s.port, {});
    expect(viewer.status).toBe(200);
    expect(viewer.key).toBeNull();
    expect(connects).toEqual([]);
    const owner = await events(s.port, withToken);
    expect(owner.key).toMatch(/^[0-9a-f]{32}$/);
    // the viewer cannot release, even with the key it might have guessed
    const post = await request(s.port, {
      method: 'POST',
      path: '/continue',
      headers: { 'x-mqlab-key': owner.key!, 'content-type': 'application/json' },
      body: JSON.stringify({ token: 'tok' }),
    });
    expect(post.status).toBe(403);
    // the owner's page closes: control does not pass to the viewer
    owner.req.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(viewer.frames.join('').match(/event: hello/g)).toHaveLength(1);
    viewer.req.destroy();
  });

  it('a malformed request-target is a 400 or 404 of the server, never an error of the run; a handler that throws is a 500', async () => {
    let boom = false;
    const s = await start({}, () => {
      if (boom) throw new Error('snapshot broke');
      return [];
    });
    for (const target of ['http://[', 'http://a:99999/', '//[::', '%', '/\u00ff'])
      expect(
        await raw(
          s.port,
          `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nAuthorization: token ${TOKEN}\r\nConnection: close\r\n\r\n`,
        ),
      ).toMatch(/^HTTP\/1\.1 (400|404)/);
    boom = true;
    expect((await request(s.port, { path: '/events', headers: withToken })).status).toBe(500);
    expect(trouble).toEqual(['--live server: a request failed: snapshot broke']);
    boom = false;
    expect((await request(s.port, { headers: withToken })).status).toBe(200); // it serves on
  });

  it('caps the streams per kind, and cuts a page that does not read once its backlog passes the bound', async () => {
    const s = await start({ limits: { owners: 2, viewers: 1, backlogBytes: 64 * 1024, stallMs: 60_000 } });
    const a = await events(s.port, withToken);
    const b = await events(s.port, withToken);
    expect((await events(s.port, withToken)).status).toBe(503);
    a.req.destroy();
    b.req.destroy();
    // a client that reads nothing: the server writes on until its backlog passes 64 kB, then cuts it
    const sock = net.connect(s.port, '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    sock.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nAuthorization: token ${TOKEN}\r\n\r\n`);
    sock.pause();
    let received = 0;
    sock.on('data', (b: Buffer) => (received += b.length));
    const closed = new Promise((r) => sock.once('close', r));
    sock.on('error', () => {});
    await new Promise((r) => setTimeout(r, 100));
    const big = 'x'.repeat(256 * 1024);
    let sent = 0;
    while (!trouble.length && sent < 400) {
      s.send('lab', big); // 256 kB a push, as a run's pushes are to a page that stopped reading
      sent++;
      await new Promise((r) => setImmediate(r));
    }
    expect(trouble[0]).toMatch(/^a page that does not read was cut \(\d+ bytes waiting\)$/);
    // the client reads again: what it gets is what the sockets held when it was cut, then the end
    sock.resume();
    await closed;
    expect(sent).toBeLessThan(400);
    expect(received).toBeLessThan(sent * big.length);
  });

  it('cuts a page that has not drained for the stall bound, however little waits', async () => {
    const s = await start({ limits: { owners: 1, viewers: 0, backlogBytes: 1 << 30, stallMs: 300 } });
    const sock = net.connect(s.port, '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    sock.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nAuthorization: token ${TOKEN}\r\n\r\n`);
    sock.pause();
    sock.on('error', () => {});
    await new Promise((r) => setTimeout(r, 100));
    // bounded by what is sent, not by a wall time a busy machine decides: the socket buffers fill
    // within a few MB, and the stall bound runs from then
    let sent = 0;
    while (!trouble.length && sent < 64 << 20) {
      s.send('lab', 'y'.repeat(64 * 1024));
      sent += 64 * 1024;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(trouble).toEqual(['a page that did not read for 300 ms was cut']);
    sock.destroy();
  });

  it('--port 80: the Host a browser sends (no :80) is this server; a port in use names itself; close ends the streams', async () => {
    const eighty = await start({ port: 80 }).catch(() => null); // port 80 needs root (CI runs as root)
    if (eighty) {
      expect(eighty.url).toBe(`http://127.0.0.1/?token=${TOKEN}`);
      expect((await request(80, { host: '127.0.0.1', headers: withToken })).status).toBe(200);
      expect((await request(80, { host: 'localhost', headers: withToken })).status).toBe(200);
      await eighty.close();
    }
    const s = await start();
    await expect(
      startLiveServer({ port: s.port }, { page: () => '', snapshot: () => [], release: () => false }),
    ).rejects.toThrow(`--live: port ${s.port} on 127.0.0.1 is in use`);
    const stream = await events(s.port, withToken);
    await s.close();
    await stream.ended;
    expect(stream.frames.join('')).toContain('event: end');
    await expect(request(s.port, {})).rejects.toThrow(/ECONNREFUSED/);
    server = undefined;
  });
});
