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
