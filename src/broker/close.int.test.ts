/**
 * A Ctrl-C closes a lab's connection while the lab is in the middle of a call on it, and a node dies
 * while a client closes its connection. Against the real broker, every call and every close must then
 * settle: a `depth()` that never returned kept db-outage from starting PostgreSQL again, and mqlab from
 * exiting (amqplib's close waits for a CloseOk the broker never sends once the connection has ended).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import amqp from 'amqplib';
import { CONFIG, PORT, useNamespace } from '../../test/helpers.js';
import { tcpProxy, viaPort } from '../../test/tcp-proxy.js';
import { Broker, closeConnection } from './broker.js';

const QUEUE = useNamespace(import.meta.url).q('close-race');
const RACES = 60; // without closeChannel about 1 race in 5 hung: 60 leave it no chance to pass
const SETTLE_MS = 5000;

let admin: Broker;
beforeAll(async () => {
  admin = await Broker.connect(CONFIG.amqpUrl);
  await admin.channel.assertQueue(QUEUE, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
});
afterAll(async () => {
  await admin.channel.deleteQueue(QUEUE).catch(() => {});
  await admin.close();
});

/** a connection per race: on a loaded broker (the suite's other files beside it) one open may time out; that is not what is tested */
async function connect(): Promise<Broker> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await Broker.connect(CONFIG.amqpUrl);
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
}

const settles = (p: Promise<unknown>) =>
  Promise.race([
    p.then(
      () => 'settled' as const,
      () => 'settled' as const,
    ),
    new Promise<'hung'>((r) => setTimeout(r, SETTLE_MS, 'hung')),
  ]);

describe('Broker.close() in the middle of a call', () => {
  it(`depth() and passive() settle (resolve or reject) when the connection closes under them, ${RACES} races`, async () => {
    const hung: string[] = [];
    for (let i = 0; i < RACES; i++) {
      const b = await connect();
      const call: Promise<unknown> = i % 2 === 0 ? b.depth(QUEUE) : b.passive(QUEUE);
      // the close lands at a different point of the call each time: before, during and after its channel opens
      for (let k = 0; k < i % 6; k++) await new Promise((r) => setImmediate(r));
      const [callEnd, closeEnd] = await Promise.all([settles(call), settles(b.close())]);
      if (callEnd === 'hung' || closeEnd === 'hung') hung.push(`race ${i}: call ${callEnd}, close ${closeEnd}`);
    }
    expect(hung).toEqual([]);
  }, 120_000);
});

describe('closeConnection() when the socket dies during the close handshake (a node killed meanwhile)', () => {
  it('settles every time, 20 cuts', async () => {
    const hung: number[] = [];
    for (let i = 0; i < 20; i++) {
      const proxy = await tcpProxy(PORT.amqp);
      try {
        const connection = await amqp.connect(viaPort(CONFIG.amqpUrl, proxy.port));
        connection.on('error', () => {});
        const closing = settles(closeConnection(connection));
        for (let k = 0; k < i % 3; k++) await new Promise((r) => setImmediate(r));
        await proxy.cut();
        if ((await closing) === 'hung') hung.push(i);
      } finally {
        await proxy.close();
      }
    }
    expect(hung).toEqual([]);
  }, 120_000);
});
