/**
 * GET-only reads of the management API for the audit: nothing here can write to the broker. Every
 * failure is one line the user can act on (exit 2): unreachable, credentials refused, a page that is
 * not the API's JSON, a timeout. The password never appears: URLs are printed masked.
 */
import { EnvError } from '../core/errors.js';
import { maskUrl } from '../core/urls.js';
import { networkCause } from '../broker/errors.js';
import { httpRequest, type HttpReply } from '../core/http-request.js';

export interface Reader {
  get<T>(path: string): Promise<T>;
  /** the same, but null when the object is not there (HTTP 404): one queue, deleted since it was listed */
  find<T>(path: string): Promise<T | null>;
  /** requests made so far */
  readonly requests: number;
}

/** with MQLAB_DEBUG set, one stderr line per request: path, status, bytes, milliseconds */
export function managementReader(
  url: string,
  timeoutMs: number,
  debug: ((line: string) => void) | null = process.env.MQLAB_DEBUG ? (l) => process.stderr.write(l + '\n') : null,
): Reader {
  const u = new URL(url);
  const auth =
    'Basic ' + Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64');
  u.username = '';
  u.password = '';
  const base = u.toString().replace(/\/$/, '');
  const where = `management API at ${maskUrl(url)}`;
  let requests = 0;
  const get = async <T>(path: string, missing: boolean): Promise<T | null> => {
    requests += 1;
    const t0 = performance.now();
    let res: HttpReply;
    try {
      res = await httpRequest(base + path, {
        headers: { authorization: auth, accept: 'application/json' },
        timeoutMs,
      });
      debug?.(`audit: GET ${path} ${res.status} ${res.text.length} B in ${Math.round(performance.now() - t0)} ms`);
    } catch (err) {
      const e = err as { name?: string; code?: string; message?: string };
      if (e.name === 'TimeoutError')
        throw new EnvError(
          `${where}: no answer within ${timeoutMs / 1000} s (GET ${path.split('?')[0]})`,
          'check the URL and that the broker is not overloaded, or raise --timeout',
        );
      throw new EnvError(
        `${where}: ${e.code ? networkCause({ code: e.code }, String(e.message)) : `unreachable (${e.message})`}`,
        'check --mgmt-url / MQLAB_MGMT_URL (http[s]://user:password@host:15672)',
      );
    }
    const route = path.split('?')[0]!;
    // past the first request the credentials were accepted: a 401 now is a vhost the user may not see
    if (res.status === 401 && requests > 1 && /^\/api\/(queues|exchanges|bindings|consumers|vhosts)\/[^/]+/.test(route))
      throw new EnvError(
        `${where}: the user may not see vhost ${vhostIn(route)} (HTTP 401 on GET ${route})`,
        `give it permissions on the vhost, even empty ones: rabbitmqctl set_permissions -p ${vhostIn(route)} USER '' '' ''`,
      );
    if (res.status === 401)
      throw new EnvError(
        `${where}: credentials refused (HTTP 401)`,
        'check the user and password in --mgmt-url / MQLAB_MGMT_URL; a user with the monitoring tag is enough',
      );
    if (res.status === 403)
      throw new EnvError(
        `${where}: the user may not read ${path.split('?')[0]} (HTTP 403)`,
        'give the user the monitoring tag (rabbitmqctl set_user_tags USER monitoring)',
      );
    if (res.status === 404 && missing) return null;
    if (res.status === 404 && /^\/api\/(queues|exchanges|bindings|consumers|vhosts)\/[^/]+/.test(path))
      throw new EnvError(
        `${where}: no vhost ${vhostIn(route)} that the user can see (HTTP 404)`,
        "check --vhost (`rabbitmqctl list_vhosts`); a monitoring user needs permissions on it, even empty ones (set_permissions -p VHOST USER '' '' '')",
      );
    const body = res.text.trimStart();
    if (body.startsWith('<'))
      throw new EnvError(
        `${where}: answered GET ${path.split('?')[0]} with an HTML page (HTTP ${res.status}), not the management API's JSON`,
        'give --mgmt-url the management API base URL (e.g. http://host:15672), not a web page or proxy login',
      );
    if (!res.ok)
      throw new EnvError(
        `${where}: GET ${path.split('?')[0]} answered HTTP ${res.status} ${body.slice(0, 120).replace(/\s+/g, ' ')}`,
      );
    try {
      return JSON.parse(body) as T;
    } catch {
      throw new EnvError(
        `${where}: GET ${path.split('?')[0]} answered with something that is not JSON (HTTP ${res.status})`,
        'give --mgmt-url the management API base URL (e.g. http://host:15672)',
      );
    }
  };
  return {
    get requests() {
      return requests;
    },
    get: async <T>(path: string) => (await get<T>(path, false)) as T,
    find: <T>(path: string) => get<T>(path, true),
  };
}

/** the vhost of /api/<kind>/<vhost>[/…] (or /api/vhosts/<vhost>), decoded */
const vhostIn = (route: string) => decodeURIComponent(route.split('/')[3] ?? '');

/** the same reader with at most `limit` of its requests in flight at once, the others queued in order */
export function limited(r: Reader, limit: number): Reader {
  let active = 0;
  const waiting: (() => void)[] = [];
  const inTurn = async <T>(request: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((go) => waiting.push(go));
    active++;
    try {
      return await request();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
  return {
    get requests() {
      return r.requests;
    },
    get: <T>(path: string) => inTurn(() => r.get<T>(path)),
    find: <T>(path: string) => inTurn(() => r.find<T>(path)),
  };
}
