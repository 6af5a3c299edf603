import { describe, expect, it } from 'vitest';
import { expectLabPasses, runLabJson, useServices } from '../../test/helpers.js';
import { atLeast, capabilities } from '../../src/broker/capabilities.js';
import type { Delivery } from '../../src/broker/broker.js';

const LINE = 'dead-letter-reasons: expired=2 maxlen=1 rejected=1 delivery_limit=1 expirationRemoved=true countGrowth=[1, 2]';
const PATHS = ['queue-ttl', 'message-ttl', 'max-length', 'reject', 'delivery-limit', 'twice'];
const DLQS = PATHS.map((p) => `dlr.${p}.dlq`);
/** queues that must be empty after a run (max-length keeps its newest message) */
const EMPTY = ['dlr.queue-ttl', 'dlr.message-ttl', 'dlr.reject', 'dlr.delivery-limit', 'dlr.twice', 'dlr.twice.retry', 'dlr.dead.watch'];

describe('dead-letter-reasons lab against the real broker', () => {
  const s = useServices();
  const lastDeathHeaders = () => atLeast(s.broker.version, 3, 13);

  /** take the one message a queue holds (acked, so nothing stays held by this connection) */
  async function take(queue: string): Promise<Delivery> {
    const d = await s.broker.get(queue);
    expect(d, `a message in ${queue}`).not.toBeNull();
    d!.ack();
    return d!;
  }

  function expectDeath(d: Delivery, reason: string, queue: string, key: string) {
    const death = (d.headers['x-death'] as Record<string, unknown>[])[0];
    expect(death).toMatchObject({ reason, queue, count: 1, exchange: 'dlr.business', 'routing-keys': [key] });
    expect(d.headers).toMatchObject({ 'x-first-death-reason': reason, 'x-first-death-queue': queue, 'x-first-death-exchange': 'dlr.business' });
    // 3.10 writes no x-last-death-*; from 3.13 on they name the newest death
    if (lastDeathHeaders()) expect(d.headers).toMatchObject({ 'x-last-death-reason': reason, 'x-last-death-queue': queue });
    else expect(d.headers['x-last-death-reason']).toBeUndefined();
    expect(d.raw.properties.expiration).toBeUndefined();
    // the DLQ's letter itself was never delivered; from 4.3 a letter that died after a delivery
    // (rejected, delivery_limit) keeps its delivery count, so the broker flags it redelivered
    const delivered = reason === 'rejected' || reason === 'delivery_limit';
    expect(d.redelivered).toBe(delivered && capabilities(s.broker.version).deadLetterKeepsDeliveryCount);
  }

  it('passes twice in a row, prints its line, and leaves exactly one letter in each DLQ', async () => {
    await expectLabPasses(['dead-letter-reasons'], {
      line: LINE,
      pass: { 'twice.countGrowth': '1,2', 'deliveryLimit.deliveries': '3', 'maxLength.deadLetter': 'oldest', 'messageTtl.expiration': 'removed' },
      check: async () => {
        for (const q of DLQS) expect(await s.broker.depth(q), q).toBe(1);
        for (const q of EMPTY) expect(await s.broker.depth(q), q).toBe(0);
        expect(await s.broker.depth('dlr.max-length')).toBe(1);
      },
    });
  });

  it('each DLQ holds a letter with the reason, queue, count and first-death headers of its path', async () => {
    const { code } = await runLabJson('dead-letter-reasons');
    expect(code).toBe(0);
    expectDeath(await take('dlr.queue-ttl.dlq'), 'expired', 'dlr.queue-ttl', 'queue-ttl');

    const perMessage = await take('dlr.message-ttl.dlq');
    expectDeath(perMessage, 'expired', 'dlr.message-ttl', 'message-ttl');
    expect((perMessage.headers['x-death'] as Record<string, unknown>[])[0]['original-expiration']).toBe('150');

    const oldest = await take('dlr.max-length.dlq');
    expect(oldest.messageId).toBe('oldest');
    expectDeath(oldest, 'maxlen', 'dlr.max-length', 'max-length');
    expect((await take('dlr.max-length')).messageId).toBe('newest');

    expectDeath(await take('dlr.reject.dlq'), 'rejected', 'dlr.reject', 'reject');
    expectDeath(await take('dlr.delivery-limit.dlq'), 'delivery_limit', 'dlr.delivery-limit', 'delivery-limit');

    const twice = await take('dlr.twice.dlq');
    expect(twice.headers['x-death']).toMatchObject([
      { reason: 'rejected', queue: 'dlr.twice', count: 2 },
      { reason: 'expired', queue: 'dlr.twice.retry', count: 1 },
    ]);
    expect(twice.headers).toMatchObject({ 'x-first-death-reason': 'rejected', 'x-first-death-queue': 'dlr.twice' });
    if (lastDeathHeaders()) expect(twice.headers).toMatchObject({ 'x-last-death-reason': 'rejected', 'x-last-death-queue': 'dlr.twice' });
  });

  it('starts from known data when an interrupted run left messages behind', async () => {
    for (const q of [...DLQS, 'dlr.max-length', 'dlr.dead.watch']) await s.broker.sendConfirmed(q, 'stale', { messageId: 'stale' });
    const { code, report } = await runLabJson('dead-letter-reasons');
    expect(code).toBe(0);
    expect(Object.values(report.facts.dlqDepths)).toEqual([1, 1, 1, 1, 1, 1]);
    for (const q of DLQS) expect((await take(q)).messageId).not.toBe('stale');
    expect(await s.broker.depth('dlr.dead.watch')).toBe(0);
  });

  it('declares quorum queues with the arguments of each path', async () => {
    const args = async (q: string) => {
      const info = await s.mgmt.queue(q);
      expect(info?.type, q).toBe('quorum');
      return info!.arguments;
    };
    expect(await args('dlr.queue-ttl')).toMatchObject({ 'x-message-ttl': 100, 'x-dead-letter-exchange': 'dlr.dead', 'x-dead-letter-routing-key': 'queue-ttl' });
    expect(await args('dlr.max-length')).toMatchObject({ 'x-max-length': 1, 'x-overflow': 'drop-head' });
    expect(await args('dlr.delivery-limit')).toMatchObject({ 'x-delivery-limit': 2 });
    const twice = await args('dlr.twice');
    expect(twice['x-dead-letter-exchange']).toBe('dlr.dead');
    expect(twice['x-dead-letter-routing-key']).toBeUndefined(); // dies with the message's own routing key
    expect(await args('dlr.twice.retry')).toMatchObject({ 'x-message-ttl': 100, 'x-dead-letter-exchange': 'dlr.business', 'x-dead-letter-routing-key': 'twice.again' });
    for (const q of [...DLQS, 'dlr.dead.watch']) await args(q);
    const bindings = await s.mgmt.bindings();
    expect(bindings).toContainEqual(expect.objectContaining({ source: 'dlr.dead', destination: 'dlr.dead.watch', routing_key: '#' }));
    expect(bindings).toContainEqual(expect.objectContaining({ source: 'dlr.business', destination: 'dlr.twice', routing_key: 'twice.again' }));
  });

  it('--namespace runs on its own queues', async () => {
    const [r] = await expectLabPasses(['dead-letter-reasons', '--namespace', 'itest'], { line: LINE, runs: 1 });
    expect(r.stdout).toContain('first=expired/itest.dlr.queue-ttl/itest.dlr.business');
    for (const q of DLQS) expect(await s.broker.depth(`itest.${q}`)).toBe(1);
  });
});
