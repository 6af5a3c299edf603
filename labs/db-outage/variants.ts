/**
 * TEST ONLY: the db-outage lab's broken variants (declared in meta.ts; MQLAB_FAULT=db-outage:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: each replaces a step of the experiment
 * (`OutageSteps`: lab.ts, consumer.ts). Those files read as the correct experiment.
 */
import type { VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { OutageSteps } from './consumer.js';

export const variants: VariantsOf<typeof meta, OutageSteps> = {
  // acked at once: the broker forgets the message before its effect is committed; nothing is given back
  'ack-before-commit': () => ({
    commitThenSettle: async (commit, ack) => {
      ack();
      await commit();
    },
  }),
  // each statement commits on its own, the effect before the key
  autocommit: () => ({
    transact: async (db, name, id, n, hold) => {
      const [done] = await db`SELECT 1 FROM ${db(name.processed)} WHERE message_id = ${id}`;
      if (!done) await db`INSERT INTO ${db(name.effects)} (message_id, delivery) VALUES (${id}, ${n})`;
      await hold();
      await db`INSERT INTO ${db(name.processed)} (message_id) VALUES (${id}) ON CONFLICT DO NOTHING`;
    },
  }),
  // whileDown runs (the held transaction goes on to COMMIT after the same wait), PostgreSQL is never stopped
  'no-outage': (_, ctx) => ({
    outage: async (whileDown) => {
      ctx.progress('(test fault) PostgreSQL is NOT stopped');
      const now = Date.now();
      await whileDown({ service: 'PostgreSQL', pid: null, stopAt: now, goneAt: now, refused: null });
      return null;
    },
  }),
};
