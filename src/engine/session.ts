/**
 * A run's session: both services connected (the broker first proven by the connection the first lab
 * then uses), the broker's capabilities, the watch that hears a service lost, and the pool's end.
 * An environment problem is reported here, before any lab starts.
 */
import type { LabMeta } from '../lab/lab.js';
import type { Config } from '../core/config.js';
import { Broker } from '../broker/broker.js';
import { capabilities } from '../broker/capabilities.js';
import { Management } from '../broker/management.js';
import { openDb, dbLossProbe, type Db } from '../db/client.js';
import { namesFor } from '../core/names.js';
import type { SessionInfo } from '../report/lab-report.js';
import { UsageError } from '../core/errors.js';
import { sleep } from '../core/time.js';
import { LossWatch, ServiceLost } from '../core/lost.js';
import { usesDatabase } from '../lab/lab.js';
import { dbPoolSize } from './jobs.js';
import type { EarlyStart } from './early-start.js';

interface Session {
  info: SessionInfo;
  /** hears the first service lost, for every lab of the run */
  watch: LossWatch;
  db: Db;
  /** the connection that proved the broker, for the first lab (null once taken) */
  takeSpare: () => Broker | null;
  /** the run is over: the spare connection closed, the pool ended (bounded) */
  end: () => Promise<void>;
}

/** connect both services (the database only when a lab uses one), taking what `start` began early */
export async function openSession(
  entries: readonly LabMeta[],
  config: Config,
  jobs: number,
  start: EarlyStart,
): Promise<Session> {
  const watch = new LossWatch();
  let dbHandle: Db | undefined;
  let ending = false;
  const onDbClose = dbLossProbe(
    () => dbHandle,
    () => ending || watch.first !== null,
    (cause, since) => watch.report(new ServiceLost('PostgreSQL', config.pgUrl, cause), since),
  );
  const usesDb = usesDatabase(entries);
  const [first, pg] = await Promise.allSettled([
    start.takeBroker(config.amqpUrl, () => Broker.connect(config.amqpUrl)),
    usesDb
      ? start.takeDb(config.pgUrl, dbPoolSize(jobs), onDbClose, () => openDb(config.pgUrl, dbPoolSize(jobs), onDbClose))
      : null,
  ]);
  if (first.status === 'rejected' || pg.status === 'rejected') {
    if (first.status === 'fulfilled') await first.value.close();
    if (pg.status === 'fulfilled') await pg.value?.db.end({ timeout: 0 });
    throw first.status === 'rejected' ? first.reason : (pg as PromiseRejectedResult).reason;
  }
  const { db, version } = pg.value ?? { db: noDatabase(entries), version: null };
  if (pg.value) dbHandle = db;
  const info: SessionInfo = {
    broker: { product: first.value.product, version: first.value.version },
    postgres: version,
    // derived from the version; the delivery-count ones measured on this broker when a lab reads them
    capabilities: entries.some((e) => e.measuresCapabilities)
      ? await (
          await import('../broker/capability-probe.js')
        ).measureCapabilities(first.value, namesFor(config), capabilities(first.value.version), () =>
          new Management(config.mgmtUrl, config.vhost).enabledFeatureFlags(),
        )
      : capabilities(first.value.version),
  };
  let spare: Broker | null = first.value;
  return {
    info,
    watch,
    db,
    takeSpare: () => {
      const s = spare;
      spare = null;
      return s;
    },
    end: async () => {
      ending = true;
      await spare?.close();
      // postgres.js 3.4.9 keeps a query that a connection error rejected (the loss probe's, during db-outage)
      // as the connection's current one, and end() waits for it until its timeout (porsager/postgres #1097,
      // #1130): every run with db-outage ended 1 s late. Not `timeout: 0`: its destroy path ended mqlab in a
      // libuv abort (uv__epoll_ctl_prep, EPOLL_CTL_MOD) in 3 of 11 Ctrl-C runs of db-outage under load. The
      // run's work is done: the end goes on, the run does not wait for it longer than POOL_END_MS. Not
      // less: with the run going on at once (writing its --json document) while the end was under way,
      // `mqlab all` after db-outage aborted in libuv (uv__epoll_ctl_prep, EPOLL_CTL_MOD on fd 19: gdb) in
      // 4 of 6 runs; waiting for the end of the idle connections (15-19 ms) it did in none of 6.
      await Promise.race([db.end({ timeout: watch.first ? 0 : 1 }).catch(() => {}), sleep(POOL_END_MS)]);
    },
  };
}

/** how long a finished run waits for its pool to end (idle connections close in 15-19 ms) */
const POOL_END_MS = 100;

/** ctx.db of a run whose labs declared they use no database: it ends at once, and any use is a lab bug (exit 2) */
function noDatabase(entries: readonly LabMeta[]): Db {
  const refuse = () => {
    throw new UsageError(
      `${entries.map((e) => e.name).join(', ')}: declared database: false (meta.ts) but used the database`,
    );
  };
  const pool = Object.assign(() => refuse(), { end: () => Promise.resolve() });
  return new Proxy(pool, { get: (target, key) => (key === 'end' ? target.end : refuse()) }) as unknown as Db;
}
