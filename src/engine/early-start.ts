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
import { connect, fitting, wantedBy, type Connections, type Wanted } from './connections.js';

/** what was begun early, each part taken once; a part not begun (or for other URLs) is made fresh */
export class EarlyStart {
  #hold: { home: string; hold: Promise<SetLock | null> } | null;
  #conns: Connections | null;

  /** `ahead`: connections begun before the run knew its config (src/cli/connect-ahead.ts), used when they are `wanted` */
  constructor(
    hold: { home: string; hold: Promise<SetLock | null> } | null,
    wanted: Wanted | null,
    ahead: Connections | null = null,
  ) {
    this.#hold = hold;
    this.#conns = wanted && (fitting(ahead, wanted) ?? connect(wanted));
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

/**
 * begin the run's hold on its set (holdServices), then its connections (a pool for `jobs` labs at
 * once), or take those begun `ahead` when they are the ones the run wants
 */
export function beginRun(request: HoldRequest, jobs = 1, ahead: Connections | null = null): EarlyStart {
  const hold = holdServices(request);
  hold.catch(() => {}); // reported when the run takes it
  return new EarlyStart(
    { home: request.config.home, hold },
    wantedBy(
      request.config,
      request.plan.map((p) => p.entry),
      jobs,
    ),
    ahead,
  );
}
