/**
 * A page on 127.0.0.1 that only the person at the terminal opens, as notebook servers do: a random
 * token (128 bits) made at start and printed in the terminal with the address (`/?token=…`); every
 * request carries it — in the query, an `Authorization: token …` header, or the HttpOnly,
 * SameSite=Strict cookie of this port that a request with the token in its query sets (a page
 * then takes the token out of its address bar, so a projector does not show it: see
 * TOKEN_OUT_OF_ADDRESS). A request without it is refused, unless the server was
 * asked for viewers (`viewers`): then a GET without it is let through as a viewer, and the handler
 * decides what a viewer may see. Beside the token: the Host header must name this address and port,
 * or a loopback name on another port (a tunnel's local end: `ssh -L 9000:127.0.0.1:8420`), never
 * another name (a web page elsewhere cannot rebind a name to it); a request from another site or origin
 * (Sec-Fetch-Site, Origin) is refused, and the handler's own errors are the server's — answered
 * 500 and told to `onTrouble`, never thrown to the run that serves the page.
 *
 * Used by `--live` (src/page/server.ts); a teacher's board is another such page.
 */
import http from 'node:http';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../core/errors.js';

/** who a request is: the token's holder, or (only when the server admits viewers) a viewer */
export type Access = 'owner' | 'viewer';

export interface LoopbackRequest {
  method: string;
  /** the request-target's path, as sent (no URL parsing: a malformed target is a path that matches nothing) */
  path: string;
  access: Access;
  req: http.IncomingMessage;
  res: http.ServerResponse;
}

interface LoopbackOptions {
  /** the port to bind on 127.0.0.1 (0: any free one) */
  port: number;
  /** what the server is, in its usage errors and refusals (e.g. '--live') */
  what: string;
  /** let a GET without the token through as a viewer (e.g. --live-viewers) */
  viewers?: boolean | undefined;
  /** the server's own trouble, one line (a handler that threw, a listener error); never the run's */
  onTrouble?: ((line: string) => void) | undefined;
  /** the token (tests); otherwise 128 random bits */
  token?: string | undefined;
}

export interface LoopbackServer {
  port: number;
  token: string;
  /** the address to print and open: the token in its query */
  url: string;
  /** the address without the token (what a viewer opens, with `viewers`) */
  viewUrl: string;
  /** stop listening and cut every connection left after `graceMs` */
  close(graceMs?: number): Promise<void>;
}

export async function startLoopbackServer(
  opts: LoopbackOptions,
  handle: (r: LoopbackRequest) => void,
): Promise<LoopbackServer> {
  const token = opts.token ?? randomBytes(16).toString('hex');
  const digest = (s: string) => createHash('sha256').update(s).digest();
  const tokenDigest = digest(token);
  const isToken = (s: string | undefined) => s !== undefined && timingSafeEqual(digest(s), tokenDigest);
  const trouble = (line: string) => opts.onTrouble?.(`${opts.what} server: ${line}`);
  let bound = opts.port;
  let hosts = new Set<string>();
  const cookie = () => `mqlab-token-${bound}`;

  const server = http.createServer((req, res) => {
    res.on('error', (e) => trouble(`a response failed: ${e.message}`));
    try {
      serve(req, res);
    } catch (e) {
      trouble(`a request failed: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) refuse(res, 500, `${opts.what}: this request failed; the run goes on`);
      else res.destroy();
    }
  });

  function serve(req: http.IncomingMessage, res: http.ServerResponse) {
    const host = req.headers.host ?? '';
    // this address and port, or a loopback name on another port: the local end of a tunnel to this one
    // (`ssh -L 9000:127.0.0.1:8420`); a name that is not loopback is DNS rebinding, refused
    if (!hosts.has(host) && !LOOPBACK_HOST.test(host))
      return refuse(
        res,
        403,
        `${opts.what} answers to 127.0.0.1, localhost or a tunnel's local end on them only, not '${host}'`,
      );
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const path = q < 0 ? target : target.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : target.slice(q + 1));
    const given = query.get('token') ?? undefined;
    const method = req.method ?? 'GET';
    const auth = /^(?:token|bearer) (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const byToken = isToken(given) || isToken(auth);
    // the printed address is let in however it was opened (typed, or a link the terminal opened)
    if (!(method === 'GET' && isToken(given))) {
      const site = req.headers['sec-fetch-site'];
      if (site !== undefined && site !== 'same-origin' && site !== 'none')
        return refuse(res, 403, `${opts.what} does not answer requests from another site (${site})`);
      // a page's own requests come from the origin it was opened at, which is the Host they name (through a
      // tunnel: its local port); another port's page on 127.0.0.1 is another origin
      const origin = req.headers.origin;
      if (
        origin !== undefined &&
        origin !== `http://${host}` &&
        !(origin.startsWith('http://') && hosts.has(origin.slice(7)))
      )
        return refuse(res, 403, `${opts.what} does not answer requests from ${origin}`);
    }
    const owner = byToken || isToken(cookieValue(req.headers.cookie, cookie()));
    if (!owner && !(opts.viewers && method === 'GET'))
      return refuse(
        res,
        403,
        `${opts.what} needs the token mqlab printed: open the address with ?token=… from the terminal that started it`,
      );
    // the printed address sets the cookie for this port: the page's own requests carry it from then on
    if (isToken(given) && method === 'GET')
      res.setHeader('set-cookie', `${cookie()}=${token}; HttpOnly; SameSite=Strict; Path=/`);
    handle({ method, path, access: owner ? 'owner' : 'viewer', req, res });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE')
        reject(
          new UsageError(
            `${opts.what}: port ${opts.port} on 127.0.0.1 is in use`,
            'choose another with --port N, or --port 0 for any free port',
          ),
        );
      else if (err.code === 'EACCES')
        reject(
          new UsageError(
            `${opts.what}: port ${opts.port} on 127.0.0.1 is not allowed for this user`,
            'choose a port above 1023 with --port N, or --port 0',
          ),
        );
      else reject(err);
    });
    server.listen(opts.port, '127.0.0.1', () => resolve());
  });
  // from now on an error of the listener is the server's, not the run's
  server.on('error', (e) => trouble(e.message));
  bound = (server.address() as AddressInfo).port;
  // a browser leaves out the default port (80) of the Host header and the Origin
  hosts = new Set([`127.0.0.1:${bound}`, `localhost:${bound}`, ...(bound === 80 ? ['127.0.0.1', 'localhost'] : [])]);
  const base = `http://127.0.0.1${bound === 80 ? '' : `:${bound}`}/`;

  return {
    port: bound,
    token,
    url: `${base}?token=${token}`,
    viewUrl: base,
    close: (graceMs = 200) =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // a page's keep-alive connection must not hold the run's exit: a moment to read its end, then cut
        setTimeout(() => server.closeAllConnections(), graceMs).unref();
      }),
  };
}

/** a Host header of a loopback name with a port: 127.0.0.1:9000, localhost:9000, [::1]:9000 */
const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\]):\d{1,5}$/;

/** the value of cookie `name` in a Cookie header */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** a page's first script line: the address bar without ?token= once the cookie holds it */
export const TOKEN_OUT_OF_ADDRESS = `if (/[?&]token=/.test(location.search)) history.replaceState(null, '', location.pathname + location.hash);`;

/** a plain-text refusal (or error): the status and one line */
export function refuse(res: http.ServerResponse, code: number, why: string): void {
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(why + '\n');
}
