import { describe, expect, it } from 'vitest';
import type { Broker } from '../broker/broker.js';
import type { Db } from '../db/client.js';
import { EarlyStart, nothingBegun } from './early-start.js';

// port 1 on the loopback refuses at once: the early attempts fail, as they do while another run's outage holds the set
const AMQP = 'amqp://app:secret@127.0.0.1:1/lab';
const PG = 'postgres://app:secret@127.0.0.1:1/lab';
const fresh = { open: true } as unknown as Broker;
const pool = { db: {} as Db, version: '18.6' };
const begun = () => new EarlyStart(null, { amqpUrl: AMQP, pgUrl: PG, poolSize: 4 });

describe('connections begun early', () => {
  it('are made again by the run when the early attempt failed, never reported from it', async () => {
    const start = begun();
    await expect(start.takeBroker(AMQP, () => Promise.resolve(fresh))).resolves.toBe(fresh);
    await expect(
      start.takeDb(
        PG,
        4,
        () => {},
        () => Promise.resolve(pool),
      ),
    ).resolves.toBe(pool);
  });

  it('are taken once, and only for the same URL and pool size', async () => {
    let made = 0;
    const connect = () => (made++, Promise.resolve(fresh));
    const open = () => (made++, Promise.resolve(pool));
    // nothing begun: straight to the run's own connect
    await nothingBegun().takeBroker(AMQP, connect);
    const start = begun();
    await start.takeBroker('amqp://app:secret@127.0.0.1:2/lab', connect);
    await start.takeDb(PG, 8, () => {}, open);
    await start.takeBroker(AMQP, connect); // taken by the other URL's call: not begun any more
    expect(made).toBe(4);
  });

  it('a hold begun for one data folder is not taken for another', async () => {
    const hold = Promise.resolve(null);
    const start = new EarlyStart({ home: '/a', hold }, null);
    let made = 0;
    await start.takeHold('/b', () => (made++, Promise.resolve(null)));
    await start.takeHold('/a', () => (made++, Promise.resolve(null))); // taken once: made again
    expect(made).toBe(2);
  });
});
