/**
 * TEST ONLY: where the db-outage lab's broken variants (declared in meta.ts;
 * MQLAB_FAULT=db-outage:<name>, src/lab/fault.ts) replace a step of the experiment (`OutageSteps`: lab.ts,
 * consumer.ts). Those files read as the correct experiment.
 */
import type { Outage, Stopped, Variants, Db } from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import type { DbOutageNames } from './names.js';

/** how the consumer settles one delivery: ack after its commit, or give it back (nack with requeue) */
export interface Settle {
  ack(): void;
  giveBack(): void;
}

/** the steps of the experiment a broken variant may replace */
export interface OutageSteps {
  /** stop PostgreSQL, run `whileDown`, start it again: the outage, or null when it was not stopped */
  outage(whileDown: (stopped: Stopped) => Promise<void>): Promise<Outage<void> | null>;
  /** a delivery's settles as the consumer is handed them at its receipt: as they are */
  onReceipt(settle: Settle): Settle;
  /** the delivery's processed key and effect, committed in one transaction after `hold` */
  transact(db: Db, name: DbOutageNames, id: string, delivery: number, hold: () => Promise<void> | null): Promise<void>;
}

export const variants = (run: { progress(line: string): void }): Variants<OutageSteps, Fault> => ({
  'ack-before-commit': {
    // acked at once: the broker forgets the message before its effect is committed; nothing is given back
    onReceipt: (settle) => {
      settle.ack();
      return { ack: () => {}, giveBack: () => {} };
    },
  },
  autocommit: {
    // each statement commits on its own, the effect before the key
    transact: async (db, name, id, n, hold) => {
      const [done] = await db`SELECT 1 FROM ${db(name.processed)} WHERE message_id = ${id}`;
      if (!done) await db`INSERT INTO ${db(name.effects)} (message_id, delivery) VALUES (${id}, ${n})`;
      await hold();
      await db`INSERT INTO ${db(name.processed)} (message_id) VALUES (${id}) ON CONFLICT DO NOTHING`;
    },
  },
  'no-outage': {
    // whileDown runs (the held transaction goes on to COMMIT after the same wait), PostgreSQL is never stopped
    outage: async (whileDown) => {
      run.progress('(test fault) PostgreSQL is NOT stopped');
      const now = Date.now();
      await whileDown({ service: 'PostgreSQL', pid: null, stopAt: now, goneAt: now, refused: null });
      return null;
    },
  },
});
