/**
 * One HTTP request over node:http (node:https for an https URL), for the management API. Not the
 * global fetch: Node 20's fetch is undici, which loads and compiles its own HTTP parser (WebAssembly)
 * on the first request, and a process that used it waits for that compilation when it exits.
 * Measured on this project's 2-core machine: the first request 77-98 ms with fetch, 21-27 ms here;
 * process.exit after it 170-200 ms with fetch, ~10 ms here.
 */
import http, { type Agent, type IncomingMessage } from 'node:http';
import https from 'node:https';

export interface HttpReply {
  status: number;
  ok: boolean;
  text: string;
}

interface HttpOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** the whole request's bound (connect, send, the answer read to its end) */
  timeoutMs: number;
}

/** what a request that got no answer in time is (`name` as fetch's AbortSignal.timeout names it) */
class HttpTimeout extends Error {
  override readonly name = 'TimeoutError';
}

/** one keep-alive agent per scheme: the labs' many small requests reuse a connection */
const agents = new Map<string, Agent>();

/** methods sent again when a kept-alive connection turns out closed (as fetch's undici does) */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/**
 * The request; should the broker have closed the kept-alive connection it went out on just then
 * (ECONNRESET or EPIPE on a reused socket: an idle connection's close crossing the request), an
 * idempotent one is sent once more on a new connection, within the same bound.
 */
export async function httpRequest(url: string, o: HttpOptions): Promise<HttpReply> {
  const deadline = Date.now() + o.timeoutMs;
  try {
    return await requestOnce(url, o);
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { reusedSocket?: boolean };
    const stale = e.reusedSocket === true && (e.code === 'ECONNRESET' || e.code === 'EPIPE');
    if (!stale || !IDEMPOTENT.has(o.method ?? 'GET') || Date.now() >= deadline) throw err;
    return requestOnce(url, { ...o, timeoutMs: deadline - Date.now() });
  }
}

function requestOnce(url: string, o: HttpOptions): Promise<HttpReply> {
  const u = new URL(url);
  const mod = u.protocol === 'https:' ? https : http;
  let agent = agents.get(u.protocol);
  if (!agent) agents.set(u.protocol, (agent = new mod.Agent({ keepAlive: true })));
  return new Promise<HttpReply>((resolve, reject) => {
    const req = mod.request(u, { method: o.method ?? 'GET', headers: o.headers, agent }, (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        clearTimeout(timer);
        const status = res.statusCode ?? 0;
        resolve({ status, ok: status >= 200 && status < 300, text });
      });
      res.on('error', fail);
    });
    const timer = setTimeout(() => req.destroy(new HttpTimeout(`no answer within ${o.timeoutMs} ms`)), o.timeoutMs);
    function fail(err: Error) {
      clearTimeout(timer);
      reject(Object.assign(err, { reusedSocket: req.reusedSocket }));
    }
    req.on('error', fail);
    req.end(o.body);
  });
}
