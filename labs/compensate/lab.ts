/**
 * compensate — idempotent conditional compensation, as the RetryLab program's `compensate` mode
 * does it (docs/labs/compensate.md).
 *
 * retry_stock: book available=9        retry_reservation: order-42 RESERVED (names.ts)
 * one release attempt = one transaction:
 *   UPDATE retry_reservation SET state='RELEASED' WHERE order_id='order-42' AND state='RESERVED'
 *     ├─ 1 row  → UPDATE retry_stock SET available=available+1 WHERE sku='book' → COMMIT
 *     └─ 0 rows → nothing to give back → COMMIT
 * Phases, each from the starting rows (names.ts reset):
 *   sequential     two attempts one after the other (the `compensation:` summary line)
 *   check-then-act contrast: SELECT state, then an unconditional UPDATE; two racing attempts
 *   race           two conditional attempts at once on two connections
 * In both races the first attempt to lock the reservation row holds its transaction open until
 * the other is seen waiting on that lock, so the two really overlap on every run.
 */
import { type Db, check, must, labCode } from '../../src/kit/index.js';
import { meta } from './meta.js';
import {
  RELEASE_RULES,
  blockedBehind,
  checkThenRelease,
  releaseReservation,
  type ReleaseOutcome,
  type ReleaseRules,
  type Tables,
} from './release.js';
import { appliedOf, overlapped } from './verdicts.js';
import { ORDER, START_AVAILABLE, names, reset, schema } from './names.js';

const ATTEMPTS = 2;

/** the steps of the compensation a broken variant may replace (variants.ts, TEST ONLY) */
export interface CompensateSteps {
  /** how a release writes */
  rules: ReleaseRules;
  /** the race's attempts: at once, each on its own pooled connection */
  raceAttempts(
    together: () => Promise<ReleaseOutcome[]>,
    oneByOne: () => Promise<ReleaseOutcome[]>,
  ): Promise<ReleaseOutcome[]>;
}
const RACE_WAIT_MS = 3_000;

async function rows(db: Db, name: Tables) {
  const [row] =
    await db`SELECT (SELECT state FROM ${db(name.reservation)} WHERE order_id = ${ORDER.orderId}) AS reservation,
                              (SELECT available FROM ${db(name.stock)} WHERE sku = ${ORDER.sku}) AS available`;
  const r = must(row, 'the reservation/stock row');
  return {
    reservation: String(r.reservation ?? 'missing'),
    available: r.available === null ? -1 : Number(r.available),
  };
}

export const lab = labCode(meta, {
  schema,
  reset,

  async run(ctx) {
    const name = names(ctx.names);
    const { db, log } = ctx;
    const record = (phase: string) => (o: ReleaseOutcome) => {
      log.emit('compensation', {
        phase,
        orderId: ORDER.orderId,
        ...o,
        status: o.stockAdded === 1 ? 'stock_returned' : 'nothing_to_release',
      });
      return o;
    };
    // the compensation's steps, as taught
    const steps = ctx.steps<CompensateSteps>({
      rules: RELEASE_RULES,
      raceAttempts: (together) => together(),
    });
    const release: typeof releaseReservation = (d, tb, o, a, hold) =>
      releaseReservation(d, tb, o, a, hold, steps.rules);
    /** two attempts at once, each on its own pooled connection; only the first to lock the row waits */
    const race = async (phase: string, attempt: typeof releaseReservation) => {
      await db.unsafe(reset(ctx.names));
      const together = () => {
        const deadline = ctx.now() + RACE_WAIT_MS;
        let holder = false;
        const holdFirst = async (tx: Parameters<typeof blockedBehind>[0]) => {
          if (holder) return undefined;
          holder = true;
          return blockedBehind(tx, deadline, (ms) => ctx.sleep(ms));
        };
        return Promise.all(
          Array.from({ length: ATTEMPTS }, (_, i) => attempt(db, name, ORDER, i + 1, holdFirst).then(record(phase))),
        );
      };
      const oneByOne = async () => {
        const outcomes: ReleaseOutcome[] = [];
        for (let i = 1; i <= ATTEMPTS; i++) outcomes.push(record(phase)(await attempt(db, name, ORDER, i)));
        return outcomes;
      };
      const outcomes = await steps.raceAttempts(together, oneByOne);
      return { outcomes, after: await rows(db, name) };
    };

    // Two release attempts, one after the other.
    const start = await rows(db, name);
    const sequential: ReleaseOutcome[] = [];
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++)
      sequential.push(record('sequential')(await release(db, name, ORDER, attempt)));
    const after = await rows(db, name);
    const applied = appliedOf(sequential);

    const naive = await race('check-then-act', checkThenRelease);
    const raced = await race('race', release);

    return {
      lines: [
        `compensation: attempts=${sequential.length} applied=${applied} reservation=${after.reservation} available=${after.available}`,
      ],
      checks: [
        check('applied', 1, applied),
        check(
          'changedRows',
          [1, 0],
          sequential.map((o) => o.changed),
        ),
        check('reservation', 'RELEASED', after.reservation),
        check('available', START_AVAILABLE + 1, after.available),
        check('checkThenActOverlapped', true, overlapped(naive.outcomes)),
        check('checkThenActApplied', 2, appliedOf(naive.outcomes)),
        check('checkThenActAvailable', START_AVAILABLE + 2, naive.after.available),
        check('raceOverlapped', true, overlapped(raced.outcomes)),
        check('raceApplied', 1, appliedOf(raced.outcomes)),
        check('raceReservation', 'RELEASED', raced.after.reservation),
        check('raceAvailable', START_AVAILABLE + 1, raced.after.available),
      ],
      facts: { start, sequential, after, checkThenAct: naive, race: raced },
    };
  },
});
