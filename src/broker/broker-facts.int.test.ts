/**
 * The rows of docs/broker-versions.md that no lab measures, measured on the broker this file reaches
 * (CI runs it on 4.3 and on 3.10): what the broker does with a delivery limit, a policy, a client's
 * x-death, and whether the capability probe agrees with the capabilities derived from the version.
 * Each expectation comes from capabilities(version), so a line that behaves otherwise fails here.
 */
import type { Channel } from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capabilities, type Capabilities } from './capabilities.js';
import { measureCapabilities } from './capability-probe.js';
import { useNamespace, useServices } from '../../test/helpers.js';

const n = useNamespace(import.meta.url);
const q = (name: string) => n.q(`facts.${name}`);

describe('broker facts of docs/broker-versions.md, on the broker at hand', () => {
  const s = useServices();
  let ch: Channel;
  let caps: Capabilities;
  const declared: string[] = [];

  beforeAll(async () => {
    ch = await s.broker.connection.createChannel();
    caps = capabilities(s.broker.version);
  });
  afterAll(async () => {
    for (const name of declared) await ch.deleteQueue(name).catch(() => {});
    await ch.close().catch(() => {});
  });

  async function quorum(name: string, args: Record<string, unknown> = {}) {
    await ch.deleteQueue(name).catch(() => {});
    await ch.assertQueue(name, { durable: true, arguments: { 'x-queue-type': 'quorum', ...args } });
    declared.push(name);
  }

  /** deliveries of one message that is returned each time (`how`) until it is gone or `max` is reached */
  async function deliveriesUntilGone(queue: string, how: 'reject' | 'nack', max: number): Promise<number> {
    await s.broker.sendConfirmed(queue, 'fact');
    let deliveries = 0;
    while (deliveries < max) {
      const m = await getWithin(queue, 1000);
      if (!m) break;
      deliveries++;
      if (how === 'reject') ch.reject(m, true);
      else ch.nack(m, false, true);
    }
    return deliveries;
  }

  async function getWithin(queue: string, ms: number) {
    const end = Date.now() + ms;
    for (;;) {
      const m = await ch.get(queue, { noAck: false });
      if (m || Date.now() > end) return m || null;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('default x-delivery-limit: 4.x drops the message at the 21st return (21 deliveries); 3.10 has none', async () => {
    await quorum(q('default-limit'));
    const deliveries = await deliveriesUntilGone(q('default-limit'), 'reject', 40);
    expect(deliveries).toBe(caps.defaultDeliveryLimit === null ? 40 : caps.defaultDeliveryLimit + 1);
  });

  it('x-delivery-limit -1 as a queue argument: no limit on 4.x, dead-lettered at the first return on 3.10', async () => {
    await quorum(q('minus-one'), { 'x-delivery-limit': -1 });
    const deliveries = await deliveriesUntilGone(q('minus-one'), 'reject', 40);
    expect(deliveries).toBe(caps.defaultDeliveryLimit === null ? 1 : 40);
  });

  it('x-delivery-limit 2: nack(requeue) counts below 4.3, reject(requeue) on every line', async () => {
    await quorum(q('limit-nack'), { 'x-delivery-limit': 2 });
    expect(await deliveriesUntilGone(q('limit-nack'), 'nack', 40)).toBe(caps.nackRequeueCountsTowardLimit ? 3 : 40);
    await ch.purgeQueue(q('limit-nack'));
    expect(await deliveriesUntilGone(q('limit-nack'), 'reject', 40)).toBe(3);
  });

  it('a policy with delivery-limit -1 or apply-to quorum_queues: accepted from 3.12 / 4.0, refused (HTTP 400) on 3.10', async () => {
    const pattern = n.exact(q('policy-target'));
    const minusOne = s.mgmt.putPolicy({
      name: n.p('facts-minus-one'),
      pattern,
      applyTo: 'queues',
      definition: { 'delivery-limit': -1 },
    });
    if (caps.defaultDeliveryLimit !== null) await expect(minusOne).resolves.toBeUndefined();
    else await expect(minusOne).rejects.toThrow(/400/);
    const applyTo = s.mgmt.putPolicy({
      name: n.p('facts-apply-to'),
      pattern,
      applyTo: 'quorum_queues',
      definition: { 'max-length': 100 },
    });
    if (caps.policyApplyToQuorumQueues) await expect(applyTo).resolves.toBeUndefined();
    else await expect(applyTo).rejects.toThrow(/400/);
    await s.mgmt.deletePolicy(n.p('facts-minus-one')).catch(() => {});
    await s.mgmt.deletePolicy(n.p('facts-apply-to')).catch(() => {});
  });

  it('a quorum x-max-length 1 with reject-publish: two confirmed, the third nacked (checked after the enqueue that crosses it)', async () => {
    await quorum(q('max-length'), { 'x-max-length': 1, 'x-overflow': 'reject-publish' });
    const confirms = await s.broker.newChannel();
    const outcomes: boolean[] = [];
    for (let i = 0; i < 3; i++)
      outcomes.push(
        await new Promise<boolean>((r) =>
          confirms.publish('', q('max-length'), Buffer.from('fact'), {}, (err) => r(!err)),
        ),
      );
    await confirms.close().catch(() => {});
    expect(outcomes).toEqual([true, true, false]);
  });

  it('an x-death a client republishes: read below 4.0 (count 5 → 6), reset on 4.x (count 1)', async () => {
    await quorum(q('xdeath-dlq'));
    await quorum(q('xdeath'), { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': q('xdeath-dlq') });
    const clientDeath = [
      {
        queue: q('xdeath'),
        reason: 'rejected',
        count: 5,
        exchange: '',
        'routing-keys': [q('xdeath')],
        time: { '!': 'timestamp', value: Math.floor(Date.now() / 1000) },
      },
    ];
    await s.broker.sendConfirmed(q('xdeath'), 'fact', { headers: { 'x-death': clientDeath } });
    ch.reject((await getWithin(q('xdeath'), 2000))!, false);
    const copy = await getWithin(q('xdeath-dlq'), 2000);
    const death = (copy!.properties.headers!['x-death'] as { queue: string; reason: string; count: number }[]).find(
      (d) => d.queue === q('xdeath') && d.reason === 'rejected',
    );
    expect(Number(death!.count)).toBe(caps.readsClientXDeath ? 6 : 1);
    ch.ack(copy!);
  });

  it('queue.purge and held at-least-once letters: 4.3 counts and removes them, yet the worker delivers the copies it took (its prefetch, 32); before 4.3 they stay', async () => {
    const HELD = 40;
    const READY = 4;
    /** dead_letter_worker_consumer_prefetch (deps/rabbit/Makefile v4.3.5: 32): the letters the worker checks out */
    const WORKER_PREFETCH = 32;
    /** dead_letter_worker_publisher_confirm_timeout on mqlab's services (config/rabbitmq/advanced.config) */
    const WORKER_TIMER_MS = 1000;
    const dlx = n.x('facts.purge.dlx');
    await ch.assertExchange(dlx, 'direct', { durable: true });
    await quorum(q('purge-target'));
    await quorum(q('purge-source'), {
      'x-dead-letter-exchange': dlx,
      'x-dead-letter-routing-key': 'held',
      'x-dead-letter-strategy': 'at-least-once',
      'x-overflow': 'reject-publish',
    });
    await ch.unbindQueue(q('purge-target'), dlx, 'held').catch(() => {});
    for (let i = 0; i < HELD; i++) await s.broker.sendConfirmed(q('purge-source'), `held-${i}`);
    for (let i = 0; i < HELD; i++) ch.reject((await getWithin(q('purge-source'), 2000))!, false);
    for (let i = 0; i < READY; i++) await s.broker.sendConfirmed(q('purge-source'), `ready-${i}`);
    // every letter held (no route to the target yet): the queue's counters, written on its tick, count them
    const held = await s.mgmt.queueWhen(
      q('purge-source'),
      (x) => x.messages === HELD + READY && x.ready === READY && x.unacked === 0,
      15_000,
      200,
      'now',
    );
    expect(held, `${HELD} held and ${READY} ready in ${q('purge-source')}`).not.toBeNull();
    const { messageCount } = await ch.purgeQueue(q('purge-source'));
    expect(messageCount).toBe(caps.purgeRemovesHeldLetters ? HELD + READY : READY);
    await ch.bindQueue(q('purge-target'), dlx, 'held');
    // the worker republishes what it still has on its timer: 4.3 the letters it had checked out, before 4.3 all
    const delivered = caps.purgeRemovesHeldLetters ? Math.min(WORKER_PREFETCH, HELD) : HELD;
    const end = Date.now() + 20_000;
    while ((await s.broker.depth(q('purge-target'))) < delivered && Date.now() < end)
      await new Promise((r) => setTimeout(r, 100));
    // and nothing more for three of its timer's periods
    await new Promise((r) => setTimeout(r, 3 * WORKER_TIMER_MS));
    expect(await s.broker.depth(q('purge-target'))).toBe(delivered);
    await ch.deleteExchange(dlx).catch(() => {});
  });

  it('the capability probe measures what the version says (nack, consumer loss, the dead-lettered copy)', async () => {
    const measured = await measureCapabilities(s.broker, n, caps);
    expect(measured.basis.nackRequeueCountsTowardLimit).toBe('measured');
    for (const k of [
      'nackRequeueCountsTowardLimit',
      'consumerLossCountsTowardLimit',
      'deliveryLimitCounter',
      'deadLetteredCopyCarriesDeliveryCount',
    ] as const) {
      expect(measured[k], k).toEqual(caps[k]);
    }
  });
});
