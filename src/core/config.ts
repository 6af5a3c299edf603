import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_URLS, portOffset, portsFor, urlsFor, type Ports } from './defaults.js';
import { UsageError } from './errors.js';
import { maskUrl } from './urls.js';
import { defaultHome } from './home.js';
import { rememberSecrets } from './secrets.js';
import { adminPassword } from './account-secrets.js';

/** One validated, typed view of flags + MQLAB_* environment: loadConfig builds it once per command (cli.ts) and per child process (child-runtime.ts). */
export interface Config {
  amqpUrl: string;
  pgUrl: string;
  mgmtUrl: string;
  /** vhost named by the AMQP URL (management calls use it) */
  vhost: string;
  /** '' or a prefix for every queue, exchange, policy and table a lab touches */
  namespace: string;
  /** where mqlab's own services keep their data: MQLAB_HOME, .mqlab/ in a clone, else the user's state folder (src/core/home.ts) */
  home: string;
  /** the ports mqlab's own services listen on (defaults + MQLAB_PORT_OFFSET) */
  ports: Ports;
  /**
   * MQLAB_STUDENT: '' or the name of the class student whose credentials this run uses (the line
   * `mqlab class` hands out sets it): their runs are recorded on the teacher's board, and the labs
   * that stop services the whole class uses are left to the teacher
   */
  student: string;
}

export interface ConfigInput {
  amqpUrl?: string | undefined;
  pgUrl?: string | undefined;
  mgmtUrl?: string | undefined;
  namespace?: string | undefined;
}

/** the package root (holds compose.yaml, config/, scripts/), from src/, dist/src/ or the bundle in dist/cli/ */
export const PROJECT_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

function findRoot(dir: string): string {
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d))
    if (fs.existsSync(path.join(d, 'compose.yaml'))) return d;
  return path.resolve(dir, '..', '..');
}

const NAMESPACE = /^[a-z][a-z0-9_]{0,23}$/;

export function loadConfig(flags: ConfigInput = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const ports = portsFor(portOffset(env));
  const home = defaultHome(PROJECT_ROOT, env);
  const urls = urlsFor(ports, adminPassword(home));
  const amqpUrl = flags.amqpUrl ?? env.MQLAB_AMQP_URL ?? urls.amqp;
  const pgUrl = flags.pgUrl ?? env.MQLAB_PG_URL ?? urls.pg;
  const mgmtUrl = flags.mgmtUrl ?? env.MQLAB_MGMT_URL ?? urls.mgmt;
  // before any validation: an error about a URL must not print its secret either
  for (const url of [amqpUrl, pgUrl, mgmtUrl]) rememberSecrets(url);
  const amqp = parseUrl(amqpUrl, 'MQLAB_AMQP_URL / --amqp-url', ['amqp:', 'amqps:']);
  parseUrl(pgUrl, 'MQLAB_PG_URL / --pg-url', ['postgres:', 'postgresql:']);
  parseUrl(mgmtUrl, 'MQLAB_MGMT_URL / --mgmt-url', ['http:', 'https:']);
  const namespace = flags.namespace ?? env.MQLAB_NAMESPACE ?? '';
  if (namespace !== '') checkNamespace(namespace, `invalid namespace '${namespace}'`);
  const student = env.MQLAB_STUDENT ?? '';
  if (student !== '') checkNamespace(student, `invalid MQLAB_STUDENT '${student}'`);
  return {
    amqpUrl,
    pgUrl,
    mgmtUrl,
    vhost: vhostOf(amqp),
    namespace,
    home,
    ports,
    student,
  };
}

/** a namespace must fit every queue, policy and table name: throws UsageError with `what` */
export function checkNamespace(namespace: string, what: string): void {
  if (!NAMESPACE.test(namespace))
    throw new UsageError(what, 'use 1-24 characters: a lowercase letter, then lowercase letters, digits or _');
}

function parseUrl(raw: string, what: string, protocols: readonly [string, ...string[]]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(
      `malformed URL in ${what}: ${maskUrl(raw)}`,
      `expected ${protocols[0]}//user:password@host:port/…`,
    );
  }
  if (!protocols.includes(url.protocol)) {
    throw new UsageError(
      `${what} must start with ${protocols.map((p) => p + '//').join(' or ')}, got ${maskUrl(raw)}`,
      `for example ${maskUrl(defaultFor(protocols[0]))}`,
    );
  }
  if (!url.hostname) throw new UsageError(`${what} has no host: ${maskUrl(raw)}`);
  // an '@' past the host: a password with an unencoded '@', '/', '?' or '#' that the parser cut apart
  // (the driver would then connect to the wrong host, and the message name another)
  if (/@/.test(url.pathname + url.search + url.hash))
    throw new UsageError(
      `${what}: the password holds a character that must be percent-encoded: ${maskUrl(raw)}`,
      'write @ as %40, / as %2F, ? as %3F and # as %23 in the password',
    );
  return url;
}

function defaultFor(protocol: string): string {
  if (protocol.startsWith('amqp')) return DEFAULT_URLS.amqp;
  if (protocol.startsWith('postgres')) return DEFAULT_URLS.pg;
  return DEFAULT_URLS.mgmt;
}

/** amqp://h/ → '/', amqp://h/lab → 'lab', amqp://h/%2F → '/', amqp://h → '/' */
function vhostOf(url: URL): string {
  const p = url.pathname;
  if (p === '' || p === '/') return '/';
  return decodeURIComponent(p.slice(1));
}
