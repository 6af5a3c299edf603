import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRequest } from './http-request.js';

let base = '';
const served = new WeakSet<object>();
const server = http.createServer((req, res) => {
  if (req.url === '/slow') return; // never answers
  // a kept-alive connection the server drops as its next request arrives (an idle close crossing it)
  if (req.url?.startsWith('/drop') && served.has(req.socket)) return void req.socket.resetAndDestroy();
  served.add(req.socket);
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ method: req.method, auth: req.headers.authorization, body }));
  });
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe('httpRequest', () => {
  it('sends the method, headers and body; gives the status and the whole answer', async () => {
    const r = await httpRequest(`${base}/api/x`, {
      method: 'PUT',
      headers: { authorization: 'Basic abc' },
      body: '{"a":1}',
      timeoutMs: 5000,
    });
    expect(r).toMatchObject({ status: 200, ok: true });
    expect(JSON.parse(r.text)).toEqual({ method: 'PUT', auth: 'Basic abc', body: '{"a":1}' });
  });

  it('a 404 is an answer, not an error', async () => {
    expect(await httpRequest(`${base}/missing`, { timeoutMs: 5000 })).toMatchObject({ status: 404, ok: false });
  });

  it('no answer within the bound: a TimeoutError', async () => {
    const t = Date.now();
    await expect(httpRequest(`${base}/slow`, { timeoutMs: 200 })).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - t).toBeLessThan(5000);
  });

  it('a kept-alive connection reset under a request: an idempotent one is sent again, a POST is not', async () => {
    expect(await httpRequest(`${base}/first`, { timeoutMs: 5000 })).toMatchObject({ status: 200 });
    expect(await httpRequest(`${base}/drop`, { timeoutMs: 5000 })).toMatchObject({ status: 200 });
    expect(await httpRequest(`${base}/again`, { method: 'PUT', timeoutMs: 5000 })).toMatchObject({ status: 200 });
    await expect(httpRequest(`${base}/drop`, { method: 'POST', timeoutMs: 5000 })).rejects.toMatchObject({
      code: 'ECONNRESET',
    });
  });

  it('nothing listening: the socket error with its code', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await expect(httpRequest(`http://127.0.0.1:${port}/`, { timeoutMs: 5000 })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });
});
