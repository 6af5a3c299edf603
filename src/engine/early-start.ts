/**
 * A run's hold on the set of services and its two connections, begun as soon as the command line
 * says labs will run (beginRun): the set lock's flock process, PostgreSQL's start-up (a backend
 * forked, SCRAM) and RabbitMQ's handshake then overlap the loading of the engine instead of following
 * it. The CLI hands the EarlyStart to the run, which takes each part once (takeHold in
 * src/cli/commands/run-labs.ts, takeBroker and takeDb in src/engine/session.ts); an early attempt
 * never decides anything: one that failed, or a broker connection lost while the run waited for the
 * set (an outage of another run), is made again there, as if never begun, and a hold refused
 * (--no-wait) is reported when the run takes it, after its own checks.
 */
import type { Broker } from '../broker/broker.js';
import type { Db } from '../db/client.js';
import type { SetLock } from '../services/set-lock.js';
import { holdServices, type HoldRequest } from './set-hold.js';
import { dbPoolSize } from './jobs.js';
import { usesDatabase } from '../lab/lab.js';

interface Connections {
  amqpUrl: string;
  /** '' once taken, or when no database was asked for */
  pgUrl: string;
  poolSize: number;
  broker: Promise<Broker>;
  db: Promise<{ db: Db; version: string }> | null;
  /** the pool's onclose, forwarded to the run's once it takes the pool (before: closes of no one's concern) */
  onClose: { listener: () => void };
}

/** what was begun early, each part taken once; a part not begun (or for other URLs) is made fresh */
export class EarlyStart {
  #hold: { home: string; hold: Promise<SetLock | null> } | null;
  #conns: Connections | null;

  constructor(
    hold: { home: string; hold: Promise<SetLock | null> } | null,
    connections: { amqpUrl: string; pgUrl: string | null; poolSize: number } | null,
  ) {
    this.#hold = hold;
    this.#conns = connections && connect(connections.amqpUrl, connections.pgUrl, connections.poolSize);
  }

  /** the hold begun early for the set in `home`, else a new one from `hold` */
  takeHold(home: string, hold: () => Promise<SetLock | null>): Promise<SetLock | null> {
    const mine = this.#hold;
    this.#hold = null;
    return mine?.home === home ? mine.hold : hold();
  }

  /** the early broker connection to `url` when one was begun and is still open, else a new one from `connect` */
  takeBroker(url: string, connect: () => Promise<Broker>): Promise<Broker> {
    const mine = this.#conns;
    const begun = mine?.amqpUrl === url ? mine.broker : null;
    if (mine) mine.amqpUrl = '';
    if (!begun) return connect();
    return begun.then(
      (broker) => (broker.open ? broker : connect()),
      () => connect(),
    );
  }

  /** the early pool for `url` (with `poolSize` connections at most) when one was begun and opened, else `open()` */
  takeDb(
    url: string,
    poolSize: number,
    onClose: () => void,
    open: () => Promise<{ db: Db; version: string }>,
  ): Promise<{ db: Db; version: string }> {
    const mine = this.#conns;
    const begun = mine?.pgUrl === url && mine.poolSize === poolSize ? mine.db : null;
    if (mine) mine.pgUrl = '';
    if (!begun || !mine) return open();
    return begun.then(
      (opened) => {
        mine.onClose.listener = onClose;
        return opened;
      },
      () => open(),
    );
  }
}

/** nothing begun: every part made when the run takes it */
export const nothingBegun = () => new EarlyStart(null, null);

/** begin the run's hold on its set (holdServices), then its connections (a pool for `jobs` labs at once) */
export function beginRun(request: HoldRequest, jobs = 1): EarlyStart {
  const hold = holdServices(request);
  hold.catch(() => {}); // reported when the run takes it
  // the database only when a lab of the run uses one (LabMeta.database): the run opens it for no other
  const usesDb = usesDatabase(request.plan.map((p) => p.entry));
  return new EarlyStart(
    { home: request.config.home, hold },
    { amqpUrl: request.config.amqpUrl, pgUrl: usesDb ? request.config.pgUrl : null, poolSize: dbPoolSize(jobs) },
  );
}

/** begin connecting to the broker and (with a URL) the database (pool of `poolSize`), in parallel */
function connect(amqpUrl: string, pgUrl: string | null, poolSize: number): Connections {
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
