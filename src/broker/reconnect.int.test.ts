/**
 * The reconnect helper against the real broker: two TCP proxies stand for two nodes; cutting the
 * one in use mid-stream is, for the client, its node dying. The publisher names what was left
 * unconfirmed and resends it over the other; the consumer subscribes again by itself.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG, PORT, useNamespace } from '../../test/helpers.js';
import { tcpProxy, viaPort, type TcpProxy } from '../../test/tcp-proxy.js';
import { Broker } from './broker.js';
import { PublishLost, ReconnectingConsumer, ReconnectingPublisher } from './reconnect.js';

const QUEUE = useNamespace(import.meta.url).q('reconnect-helper.test');
let proxies: TcpProxy[] = [];
let broker: Broker;
beforeAll(async () => {
  broker = await Broker.connect(CONFIG.amqpUrl);
  await broker.channel.assertQueue(QUEUE, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await broker.channel.purgeQueue(QUEUE);
});
afterAll(async () => {
  await broker.channel.deleteQueue(QUEUE).catch(() => {});
  await broker.close();
});
afterEach(async () => {
  for (const p of proxies) await p.close();
  proxies = [];
});

async function twoNodes(): Promise<string[]> {
  proxies = [await tcpProxy(PORT.amqp), await tcpProxy(PORT.amqp)];
  return proxies.map((p) => viaPort(CONFIG.amqpUrl, p.port));
}

describe('ReconnectingPublisher', () => {
  it('after a cut mid-stream, unconfirmed() is exactly what was not confirmed; reconnect() moves to the next URL; the resend lands every id', async () => {
    const urls = await twoNodes();
    const pub = await ReconnectingPublisher.open({ urls, maxWaitMs: 10_000 });
    const losses: string[] = [];
    pub.onLost((cause) => losses.push(cause));
    expect(pub.url).toBe(urls[0]);
    const ids = Array.from({ length: 400 }, (_, i) => String(i + 1));
    const outcomes = new Map<string, 'confirmed' | 'lost'>();
    const sends = ids.map((id) =>
      pub.publish('', QUEUE, id, { messageId: id }).then(
        () => outcomes.set(id, 'confirmed'),
        (err) => {
          expect(err).toBeInstanceOf(PublishLost);
          outcomes.set(id, 'lost');
        },
      ),
    );
    await proxies[0]!.cut(); // while most of the 400 are still in flight
    await Promise.all(sends);
    expect(losses).toHaveLength(1);
    const lost = ids.filter((id) => outcomes.get(id) === 'lost');
    expect(lost.length).toBeGreaterThan(0);
    expect(pub.unconfirmed().sort()).toEqual(lost.sort());
    expect(await pub.reconnect()).toBe(urls[1]);
    await pub.resendUnconfirmed();
    expect(pub.unconfirmed()).toEqual([]);
    expect(pub.ledger.confirmed()).toHaveLength(400);
    await pub.close();
    // the broker holds every id at least once (a lost publish may have arrived before the cut)
    const seen = new Set<string>();
    for (let m = await broker.get(QUEUE); m; m = await broker.get(QUEUE)) {
      seen.add(m.body);
      m.ack();
    }
    expect(seen.size).toBe(400);
  });

  it('renewChannel(): a fresh confirm channel on the same connection; what awaited its confirm on the old one is lost, what follows is confirmed and lands', async () => {
    await broker.channel.purgeQueue(QUEUE);
    const pub = await ReconnectingPublisher.open({ urls: [CONFIG.amqpUrl], maxWaitMs: 10_000 });
    await pub.publish('', QUEUE, 'a', { messageId: 'a' });
    const pending = pub.publish('', QUEUE, 'b', { messageId: 'b' }).then(
      () => 'confirmed',
      (err) => (err instanceof PublishLost ? 'lost' : String(err)),
    );
    expect(await pub.renewChannel()).toBe(true);
    expect(['lost', 'confirmed']).toContain(await pending); // the broker may have confirmed it before the close
    await pub.publish('', QUEUE, 'c', { messageId: 'c' });
    expect(pub.connections).toBe(1);
    await pub.close();
    expect(await pub.renewChannel()).toBe(false); // no live connection
    const seen: string[] = [];
    for (let m = await broker.get(QUEUE); m; m = await broker.get(QUEUE)) {
      seen.push(m.body);
      m.ack();
    }
    expect(seen).toContain('a');
    expect(seen).toContain('c');
  });

  it('gives up after maxWaitMs when no URL accepts, with one line naming the masked URLs', async () => {
    const urls = await twoNodes();
    for (const p of proxies) await p.cut();
    const start = Date.now();
    await expect(ReconnectingPublisher.open({ urls, maxWaitMs: 1500 })).rejects.toThrow(
      /no RabbitMQ node accepted a connection within 2 s \(amqp:\/\/app:\*+@127/,
    );
    expect(Date.now() - start).toBeLessThan(4000);
  });
});

describe('ReconnectingConsumer', () => {
  it('subscribes again on the other URL after its connection is cut and receives every message', async () => {
    const urls = await twoNodes();
    const got = new Set<string>();
    let firstHalf: () => void = () => {};
    const half = new Promise<void>((r) => (firstHalf = r));
    const consumer = await ReconnectingConsumer.start({
      urls,
      maxWaitMs: 10_000,
      queue: QUEUE,
      prefetch: 10,
      handler: (m) => {
        got.add(m.body);
        m.ack();
        if (got.size === 50) firstHalf();
      },
    });
    for (let i = 1; i <= 50; i++) await broker.sendConfirmed(QUEUE, `c${i}`, { messageId: `c${i}` });
    await half;
    await proxies[0]!.cut();
    for (let i = 51; i <= 100; i++) await broker.sendConfirmed(QUEUE, `c${i}`, { messageId: `c${i}` });
    const until = Date.now() + 15_000;
    while (got.size < 100 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(got.size).toBe(100);
    expect(consumer.subscriptions).toBe(2);
    expect(consumer.url).toBe(urls[1]);
    await consumer.close();
  });
});
