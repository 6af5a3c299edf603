import { describe, expect, it } from 'vitest';
import type { Broker } from '../broker/broker.js';
import type { Db } from '../db/client.js';
import { connectEarly, takeBroker, takeDb } from './early-start.js';

// port 1 on the loopback refuses at once: the early attempts fail, as they do while another run's outage holds the set
const AMQP = 'amqp://app:secret@127.0.0.1:1/lab';
const PG = 'postgres://app:secret@127.0.0.1:1/lab';
const fresh = { open: true } as unknown as Broker;
const pool = { db: {} as Db, version: '18.6' };

describe('connections begun early', () => {
  it('are made again in runLabs when the early attempt failed, never reported from it', async () => {
    connectEarly(AMQP, PG, 4);
    await expect(takeBroker(AMQP, () => Promise.resolve(fresh))).resolves.toBe(fresh);
    await expect(
      takeDb(
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
    await takeBroker(AMQP, connect);
    connectEarly(AMQP, PG, 4);
    await takeBroker('amqp://app:secret@127.0.0.1:2/lab', connect);
    await takeDb(PG, 8, () => {}, open);
    await takeBroker(AMQP, connect); // taken by the other URL's call: not begun any more
    expect(made).toBe(4);
  });
});
