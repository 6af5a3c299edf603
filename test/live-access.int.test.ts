/**
 * Who gets into a --live run (issue 47 D4, D5, D16), as the CLI serves it: another local account
 * (a second, unprivileged OS user, test/other-user.ts) reads nothing of the run, gets no control
 * key, starts nothing and releases nothing; the presenter's address (its token) does all of that.
 * A malformed request-target is the server's own 404, and the run goes on to write --json and
 * --junit. `--port 80` prints an address a browser opens (its Host header has no port).
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMqlab, useNamespace } from './helpers.js';
import { asOtherUser, ensureOtherUser } from './other-user.js';

useNamespace(import.meta.url);

const started: ReturnType<typeof startMqlab>[] = [];

/** `mqlab …` with --live, and the address it printed (with its token) */
async function startLive(args: string[]) {
  const run = startMqlab(args);
  started.push(run);
  let stderr = '';
  run.child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  await run.stderrShows('live page at http://127.0.0.1', 60_000);
  await run.stderrShows(' (127.0.0.1 only', 5_000);
  const url = /live page at (http:\/\/127\.0\.0\.1(?::\d+)?\/\S*)/.exec(stderr)?.[1] ?? '';
  const parsed = new URL(url);
  return {
    ...run,
    url,
    port: Number(parsed.port || 80),
    token: parsed.searchParams.get('token'),
    stderr: () => stderr,
  };
}

/**
 * D4's reproduction, run by another account: the page, a guessed token, the event stream (its
 * control key and the checkpoint it waits on, read for up to `waitMs`), then Continue with them
 */
const INTRUDER = String.raw`
const http = require('http');
const port = Number(process.argv[1]), waitMs = Number(process.argv[2]);
const out = { page: 0, guessed: 0, events: 0, key: null, waiting: null, continue: 0 };
const get = (path) => new Promise((r) => http.get({ host: '127.0.0.1', port, path }, (res) => { res.resume(); r(res.statusCode); }).on('error', () => r(-1)));
(async () => {
  out.page = await get('/');
  out.guessed = await get('/?token=' + '0'.repeat(32));
  await new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/events' }, (res) => {
      out.events = res.statusCode; let buf = '';
      const done = () => { req.destroy(); resolve(); };
      res.on('data', (c) => {
        buf += c;
        const k = /event: hello\ndata: (.*)\n/.exec(buf); if (k) out.key = JSON.parse(k[1]).key;
        const w = /"waiting":"([^"]+)"/.exec(buf); if (w) { out.waiting = w[1]; done(); }
      });
      res.on('end', done); setTimeout(done, waitMs);
    });
    req.on('error', resolve);
  });
  out.continue = await new Promise((r) => {
    const q = http.request({ host: '127.0.0.1', port, path: '/continue', method: 'POST',
      headers: { 'content-type': 'application/json', 'x-mqlab-key': out.key || 'x' } }, (res) => { res.resume(); r(res.statusCode); });
    q.on('error', () => r(-1)); q.end(JSON.stringify({ token: out.waiting || 'x' }));
  });
  console.log(JSON.stringify(out));
})();
`;

interface Intrusion {
  page: number;
  guessed: number;
  events: number;
  key: string | null;
  waiting: string | null;
  continue: number;
}

async function intrude(port: number, waitMs: number): Promise<Intrusion> {
  const r = await asOtherUser(INTRUDER, [String(port), String(waitMs)]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Intrusion;
}

/** the presenter's stream, by the printed token: the control key it is given */
function presenter(port: number, token: string) {
  return new Promise<{ key: string | null; req: http.ClientRequest }>((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: `/events?token=${token}` }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`the presenter's stream: ${res.statusCode}`));
      let buf = '';
      res.on('data', (c: Buffer) => {
        buf += c.toString();
        const m = /event: hello\ndata: (.*)\n/.exec(buf);
        if (m) resolve({ key: (JSON.parse(m[1]!) as { key: string | null }).key, req });
      });
    });
    req.on('error', () => {});
  });
}

const prompts = (stderr: string) => (stderr.match(/press Enter to continue/g) ?? []).length;

describe('--live: the token keeps other local users out; the server’s errors are its own', () => {
  beforeAll(ensureOtherUser);
  afterEach(async () => {
    for (const run of started.splice(0))
      if (run.child.exitCode === null && run.child.signalCode === null) {
        run.child.kill('SIGINT');
        await run.exited(30_000).catch(() => {});
      }
  });

  it('another account reads nothing, takes no control, starts and releases nothing; the printed address does', async () => {
    const run = await startLive(['retry', '--live', '--port', '0', '--step']);
    // before any page: the run waits for one; the other account's stream neither starts nor joins it
    const before = await intrude(run.port, 3000);
    expect(before).toEqual({ page: 403, guessed: 403, events: 403, key: null, waiting: null, continue: 403 });
    expect(run.token).toMatch(/^[0-9a-f]{32}$/);
    expect(prompts(run.stderr())).toBe(0);
    // the presenter's address: control, and the run starts
    const own = await presenter(run.port, run.token!);
    expect(own.key).toMatch(/^[0-9a-f]{32}$/);
    await run.stderrShows('press Enter to continue', 120_000);
    // paused: the other account cannot release the checkpoint
    const paused = await intrude(run.port, 3000);
    expect(paused).toEqual({ page: 403, guessed: 403, events: 403, key: null, waiting: null, continue: 403 });
    expect(prompts(run.stderr())).toBe(1);
    // the presenter goes on (Enter in the terminal, typed ahead for every pause): PASS
    run.child.stdin?.write('\n'.repeat(40));
    const r = await run.exited(180_000);
    expect(r.exitCode, run.stderr()).toBe(0);
    own.req.destroy();
  }, 300_000);

  it('a malformed request-target (D5) is answered by the server, and the run writes --json and --junit', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-live-access-'));
    const junit = path.join(dir, 'run.xml');
    const run = await startLive(['retry', '--live', '--port', '0', '--json', '--junit', junit]);
    const answers: string[] = [];
    for (const target of ['http://[', 'http://a:99999/'])
      answers.push(
        await new Promise<string>((resolve) => {
          const s = net.connect(run.port, '127.0.0.1', () =>
            s.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${run.port}\r\nConnection: close\r\n\r\n`),
          );
          let got = '';
          s.on('data', (b) => (got += b.toString()));
          s.on('close', () => resolve(got.split('\r\n')[0] ?? ''));
          s.on('error', () => resolve('error'));
        }),
      );
    expect(answers).toEqual(['HTTP/1.1 403 Forbidden', 'HTTP/1.1 403 Forbidden']); // no token: refused, nothing parsed
    const withToken = await new Promise<string>((resolve) => {
      const s = net.connect(run.port, '127.0.0.1', () =>
        s.write(
          `GET http://[ HTTP/1.1\r\nHost: 127.0.0.1:${run.port}\r\nAuthorization: token ${run.token}\r\nConnection: close\r\n\r\n`,
        ),
      );
      let got = '';
      s.on('data', (b) => (got += b.toString()));
      s.on('close', () => resolve(got.split('\r\n')[0] ?? ''));
    });
    expect(withToken).toBe('HTTP/1.1 404 Not Found');
    const own = await presenter(run.port, run.token!);
    const r = await run.exited(180_000);
    own.req.destroy();
    expect(r.exitCode, run.stderr()).toBe(0);
    expect(run.stderr()).not.toMatch(/TypeError|Invalid URL|\n\s+at /);
    expect((JSON.parse(r.stdout) as { labs: { lab: string }[] }).labs[0]?.lab).toBe('retry');
    expect(fs.readFileSync(junit, 'utf8')).toMatch(/<testsuite name="[^"]*retry"/);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 300_000);

  it('--port 80 (D16): the printed address has no port, and a browser’s Host for it is let in', async () => {
    const run = await startLive(['retry', '--live', '--port', '80', '--step']);
    expect(run.url).toMatch(/^http:\/\/127\.0\.0\.1\/\?token=[0-9a-f]{32}$/);
    const status = (host: string) =>
      new Promise<number>((resolve, reject) =>
        http
          .get({ host: '127.0.0.1', port: 80, path: `/?token=${run.token}`, headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on('error', reject),
      );
    expect(await status('127.0.0.1')).toBe(200);
    expect(await status('localhost')).toBe(200);
    expect(await status('127.0.0.1:80')).toBe(200);
    expect(await status('evil.example')).toBe(403);
  }, 120_000);
});
