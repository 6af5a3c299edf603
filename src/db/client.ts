/** The PostgreSQL client (the `postgres` package), opened and verified once per run. */
import postgres from 'postgres';
import type { Sql } from 'postgres';
import { EnvError, UP_HINT } from '../core/errors.js';
import { maskText, maskUrl } from '../core/urls.js';
import { networkCause } from '../broker/errors.js';
import { pgCredentials } from './options.js';
import { isConnectionLoss, lossCause } from '../core/lost.js';
import { backoffMs, type Backoff } from '../broker/reconnect-plan.js';

export type Db = Sql;

/**
 * `onClose` hears every connection of the pool that closes (the pool's idle timeout too):
 * watchDb tells a lost database from an idle connection.
 */
export interface DbPoolOptions {
  /**
   * how long the pool waits before it connects again after n failed connects in a row: initialMs × 2^n,
   * at most maxMs (default DB_RECONNECT). The driver's own grows 3^n/100 s (7 failures: 11–22 s): after a
   * database restart the first query of a run (or a consumer's next attempt) waited that long.
   */
  reconnect?: Backoff;
}

/** mqlab's pools: 100 ms × 2^n, at most 1 s */
export const DB_RECONNECT: Backoff = { initialMs: 100, maxMs: 1000 };

export async function openDb(
  url: string,
  max = 4,
  onClose?: () => void,
  pool: DbPoolOptions = {},
): Promise<{ db: Db; version: string }> {
  const creds = pgCredentials(url);
  const { reconnect = DB_RECONNECT } = pool;
  const db = postgres(creds.url, {
    max,
    backoff: (failures: number) => backoffMs(reconnect, failures) / 1000,
    ...(creds.password !== undefined ? { password: creds.password } : {}),
    onnotice: () => {},
    connect_timeout: 5,
    idle_timeout: 30,
    // postgres.js asks every new connection for the database's array types (a pg_type query) so it can
    // parse array columns; mqlab reads none (a list comes back as json_agg), and that query was a
    // round trip and ~5 ms of parsing on the way to every run's first query
    fetch_types: false,
    connection: { application_name: 'mqlab' },
    ...(onClose ? { onclose: onClose } : {}),
  });
  try {
    const [row] = await db`select current_setting('server_version') as v`;
    return { db, version: String(row?.v) }; // the query returns one row
  } catch (err) {
    await db.end({ timeout: 0 }).catch(() => {});
    throw dbError(err, url);
  }
}

export function dbError(err: unknown, url: string): EnvError {
  const e = err as { code?: string; message?: string };
  const where = `PostgreSQL at ${maskUrl(url)}`;
  const msg = maskText(String(e?.message ?? err));
  switch (e?.code) {
    case '28P01':
    case '28000':
      return new EnvError(
        `${where}: credentials refused (${msg})`,
        'check the user and password in MQLAB_PG_URL, or ' + UP_HINT,
      );
    case '3D000':
      return new EnvError(`${where}: ${msg}`, UP_HINT + ', or fix the database name in MQLAB_PG_URL');
    case '42501':
      return new EnvError(
        `${where}: permission denied (${msg})`,
        'the app role needs CREATE on its schema; ' + UP_HINT,
      );
  }
  return new EnvError(`${where}: ${networkCause(e, msg)}`, UP_HINT);
}

/** SQLSTATEs that say the lab may not have its tables here: insufficient_privilege, invalid_schema_name, undefined_table */
const NOT_HERE = new Set(['42501', '3F000', '42P01']);

/**
 * An error of a lab's schema or reset SQL that says this database is not one a lab can use (no
 * CREATE on the schema, a search_path naming no schema): an environment error naming the user and the
 * database, else null (a lab bug, reported as such)
 */
export function setupError(err: unknown, url: string): EnvError | null {
  const e = err as { code?: string; message?: string };
  if (!e?.code || !NOT_HERE.has(e.code)) return null;
  const u = new URL(url);
  const user = decodeURIComponent(u.username) || 'the user';
  const database = decodeURIComponent(u.pathname.slice(1)) || user;
  return new EnvError(
    `PostgreSQL at ${maskUrl(url)}: user ${user} cannot create the lab's tables in database ${database} (${maskText(String(e.message))})`,
    `mqlab up provisions database lab with schema lab for user app; point MQLAB_PG_URL there, or ${UP_HINT}`,
  );
}

/**
 * When a connection of `db` closes and the pool is not being ended, ask the database at once
 * (`select 1`, a new connection): refused or reset → `onLost` with the cause and when the probe began.
 */
export function dbLossProbe(
  getDb: () => Db | undefined,
  isEnding: () => boolean,
  onLost: (cause: string, since: number) => void,
): () => void {
  let probing = false;
  return () => {
    const db = getDb();
    if (!db || isEnding() || probing) return;
    probing = true;
    const since = Date.now(); // its answer may come after the outage that closed the connection (LossWatch.report)
    // a refused or reset connection is a lost database at once; a connect that timed out may be a busy
    // machine (two busy loops and a booting RabbitMQ: a 5 s connect timeout hit once): asked again first
    const attempt = (timeoutsLeft: number): Promise<unknown> =>
      db`select 1`.then(
        () => (probing = false),
        (err: unknown) => {
          if (!isEnding() && (err as { code?: unknown }).code === 'CONNECT_TIMEOUT' && timeoutsLeft > 0)
            return attempt(timeoutsLeft - 1);
          if (!isEnding() && isConnectionLoss(err)) onLost(lossCause(err, 'connection lost during the run'), since);
          probing = false;
          return undefined;
        },
      );
    void attempt(PROBE_TIMEOUTS);
  };
}

/** connect timeouts (5 s each) the loss probe takes before it calls the database lost */
const PROBE_TIMEOUTS = 2;
