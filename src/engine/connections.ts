/**
 * A run's two connections, begun before the run takes them (src/engine/early-start.ts, and ahead of
 * the CLI's loading by src/cli/connect-ahead.ts): a module of its own, so that beginning them loads
 * the two clients and nothing of the engine or the CLI.
 */
import type { Broker } from '../broker/broker.js';
import type { Db } from '../db/client.js';
import type { Config } from '../core/config.js';
import { dbPoolSize } from './jobs.js';
import { usesDatabase, type LabMeta } from '../lab/lab.js';

/** the connections a run of `labs` uses: the broker's, and the database's (a pool of `poolSize`) when one of them uses it */
export interface Wanted {
  amqpUrl: string;
  pgUrl: string | null;
  poolSize: number;
}

/** connections under way (begun by connect) */
export interface Connections {
  amqpUrl: string;
  /** '' once taken, or when no database was asked for */
  pgUrl: string;
  poolSize: number;
  broker: Promise<Broker>;
  db: Promise<{ db: Db; version: string }> | null;
  /** the pool's onclose, forwarded to the run's once it takes the pool (before: closes of no one's concern) */
  onClose: { listener: () => void };
}

/** what a run of `labs` connects to: the database only when one of them uses it (LabMeta.database) */
export function wantedBy(config: Config, labs: readonly Pick<LabMeta, 'database'>[], jobs: number): Wanted {
  return { amqpUrl: config.amqpUrl, pgUrl: usesDatabase(labs) ? config.pgUrl : null, poolSize: dbPoolSize(jobs) };
}

/** begin the connections one lab run alone with `config` uses (src/cli/connect-ahead.ts) */
export const connectFor = (config: Config, lab: Pick<LabMeta, 'database'>): Connections =>
  connect(wantedBy(config, [lab], 1));

/** connections begun ahead, when they are the ones wanted; else they are closed, and null */
export function fitting(begun: Connections | null, wanted: Wanted): Connections | null {
  if (!begun) return null;
  if (begun.amqpUrl === wanted.amqpUrl && begun.pgUrl === (wanted.pgUrl ?? '') && begun.poolSize === wanted.poolSize)
    return begun;
  begun.broker.then((b) => b.close()).catch(() => {});
  begun.db?.then(({ db }) => db.end({ timeout: 1 })).catch(() => {});
  return null;
}

/** begin connecting to the broker and (with a URL) the database (pool of `poolSize`), in parallel */
export function connect({ amqpUrl, pgUrl, poolSize }: Wanted): Connections {
  const onClose = { listener: () => {} };
  // the database first: its start-up (a backend forked, SCRAM) takes longer than the broker's
  // handshake, and goes on in the server while the broker's client is loaded
  const db =
    pgUrl === null
      ? null
      : import('../db/client.js').then(({ openDb }) => openDb(pgUrl, poolSize, () => onClose.listener()));
  const broker = import('../broker/broker.js').then(({ Broker }) => Broker.connect(amqpUrl));
  // nobody may ever take them (a usage error, a lab that cannot run here): no unhandled rejection
  broker.catch(() => {});
  db?.catch(() => {});
  return { amqpUrl, pgUrl: pgUrl ?? '', poolSize, broker, db, onClose };
}
