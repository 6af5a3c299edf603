import { describe, expect, it } from 'vitest';
import { expectLabPasses, runLabJson, useNamespace, useServices } from '../../test/helpers.js';
import { atLeast, capabilities } from '../../src/broker/capabilities.js';
import type { Delivery } from '../../src/broker/broker.js';
import { DELIVERY_LIMIT } from './reasons.js';

/** the facts these tests read */
interface ReasonsFacts {
  dlqDepths: Record<string, number>;
}

const n = useNamespace(import.meta.url);

const LINE =
  'dead-letter-reasons: expired=2 maxlen=1 rejected=1 delivery_limit=1 expirationRemoved=true countGrowth=[1, 2]';
const PATHS = ['queue-ttl', 'message-ttl', 'max-length', 'reject', 'delivery-limit', 'twice'];
const DLQS = PATHS.map((p) => `dlr.${p}.dlq`);
/** queues that must be empty after a run (max-length keeps its newest message) */
const EMPTY = [
  n.q('dlr.queue-ttl'),
  n.q('dlr.message-ttl'),
  n.q('dlr.reject'),
  n.q('dlr.delivery-limit'),
  n.q('dlr.twice'),
  n.q('dlr.twice.retry'),
  n.q('dlr.dead.watch'),
];

describe('dead-letter-reasons lab against the real broker', () => {
  const s = useServices();
  const lastDeathHeaders = () => atLeast(s.broker.version, 3, 13);

  /** take the one message a queue holds (acked, so nothing stays held by this connection) */
  async function take(queue: string): Promise<Delivery> {
    const m = await s.broker.get(queue);
    expect(m, `a message in ${queue}`).not.toBeNull();
    m!.ack();
    return m!;
  }

  function expectDeath(m: Delivery, reason: string, queue: string, key: string) {
    const death = (m.headers['x-death'] as Record<string, unknown>[])[0];
    expect(death).toMatchObject({ reason, queue, count: 1, exchange: n.q('dlr.business'), 'routing-keys': [key] });
    expect(m.headers).toMatchObject({
      'x-first-death-reason': reason,
      'x-first-death-queue': queue,
      'x-first-death-exchange': n.q('dlr.business'),
    });
    // 3.10 writes no x-last-death-*; from 3.13 on they name the newest death
    if (lastDeathHeaders())
      expect(m.headers).toMatchObject({ 'x-last-death-reason': reason, 'x-last-death-queue': queue });
    else expect(m.headers['x-last-death-reason']).toBeUndefined();
    expect(m.raw.properties.expiration).toBeUndefined();
    // the DLQ's letter itself was never delivered; from 4.0 a copy dead-lettered from a quorum queue
    // carries the count of failed deliveries, and comes redelivered when it is above 0: a
    // reject(requeue=false) is one (1); the delivery_limit path's reject(requeue=true) raises it only
    // from 4.3.0 (limit + 1), where the limit compares it too: on 4.0–4.2 it is a plain return, the
    // copy carries none (rabbit_fifo return_one, v4.2.9; measured on 4.0.5)
    const caps = capabilities(s.broker.version);
    const carried =
      reason === 'rejected' || (reason === 'delivery_limit' && caps.deliveryLimitCounter === 'delivery-count');
    expect(m.redelivered).toBe(carried && caps.deadLetteredCopyCarriesDeliveryCount);
    const carriedCount = carried ? (reason === 'rejected' ? 1 : DELIVERY_LIMIT + 1) : 0;
    expect(m.headers['x-delivery-count'] ?? 'absent').toBe(firstGetCount(carriedCount));
    // 4.3 carries the acquired count across too (#16039): the same numbers; before 4.3 no such header
    expect(m.headers['x-acquired-count'] ?? 'absent').toBe(
      caps.acquiredCountHeader ? firstGetCount(carriedCount) : 'absent',
    );
  }

  /**
   * x-delivery-count of a DLQ's first basic.get, for a copy that carried `carried` failed deliveries:
   * 3.10.8 adds it to every basic.get, 0 for a copy (it carries nothing); from 4.0 it is there when the
   * copy carried a count above 0 (rabbit_fifo_client add_delivery_count_header, v4.0.0 … v4.3.5)
   */
  function firstGetCount(carried: number): number | 'absent' {
    if (!capabilities(s.broker.version).deadLetteredCopyCarriesDeliveryCount) return 0;
    return carried > 0 ? carried : 'absent';
  }

  it('passes twice in a row, prints its line, and leaves exactly one letter in each DLQ', async () => {
    await expectLabPasses(['dead-letter-reasons'], {
      line: LINE,
      pass: {
        'twice.countGrowth': '1,2',
        'deliveryLimit.deliveries': '3',
        'maxLength.deadLetter': 'oldest',
        'messageTtl.expiration': 'removed',
      },
      check: async () => {
        for (const q of DLQS.map(n.q)) expect(await s.broker.depth(q), q).toBe(1);
        for (const q of EMPTY) expect(await s.broker.depth(q), q).toBe(0);
        expect(await s.broker.depth(n.q('dlr.max-length'))).toBe(1);
      },
    });
  });

  it('each DLQ holds a letter with the reason, queue, count and first-death headers of its path', async () => {
    const { code } = await runLabJson<ReasonsFacts>('dead-letter-reasons');
    expect(code).toBe(0);
    expectDeath(await take(n.q('dlr.queue-ttl.dlq')), 'expired', n.q('dlr.queue-ttl'), 'queue-ttl');

    const perMessage = await take(n.q('dlr.message-ttl.dlq'));
    expectDeath(perMessage, 'expired', n.q('dlr.message-ttl'), 'message-ttl');
    expect((perMessage.headers['x-death'] as Record<string, unknown>[])[0]?.['original-expiration']).toBe('150');

    const oldest = await take(n.q('dlr.max-length.dlq'));
    expect(oldest.messageId).toBe('oldest');
    expectDeath(oldest, 'maxlen', n.q('dlr.max-length'), 'max-length');
    expect((await take(n.q('dlr.max-length'))).messageId).toBe('newest');

    expectDeath(await take(n.q('dlr.reject.dlq')), 'rejected', n.q('dlr.reject'), 'reject');
    expectDeath(
      await take(n.q('dlr.delivery-limit.dlq')),
      'delivery_limit',
      n.q('dlr.delivery-limit'),
      'delivery-limit',
    );

    const twice = await take(n.q('dlr.twice.dlq'));
    // two reject(requeue=false): two failed deliveries carried (4.x), redelivered
    expect(twice.headers['x-delivery-count'] ?? 'absent').toBe(firstGetCount(2));
    expect(twice.headers['x-acquired-count'] ?? 'absent').toBe(
      capabilities(s.broker.version).acquiredCountHeader ? 2 : 'absent',
    );
    expect(twice.redelivered).toBe(capabilities(s.broker.version).deadLetteredCopyCarriesDeliveryCount);
    expect(twice.headers['x-death']).toMatchObject([
      { reason: 'rejected', queue: n.q('dlr.twice'), count: 2 },
      { reason: 'expired', queue: n.q('dlr.twice.retry'), count: 1 },
    ]);
    expect(twice.headers).toMatchObject({
      'x-first-death-reason': 'rejected',
      'x-first-death-queue': n.q('dlr.twice'),
    });
    if (lastDeathHeaders())
      expect(twice.headers).toMatchObject({
        'x-last-death-reason': 'rejected',
        'x-last-death-queue': n.q('dlr.twice'),
      });
  });

  it('starts from known data when an interrupted run left messages behind', async () => {
    for (const q of [...DLQS.map(n.q), n.q('dlr.max-length'), n.q('dlr.dead.watch')])
      await s.broker.sendConfirmed(q, 'stale', { messageId: 'stale' });
    const { code, report } = await runLabJson<ReasonsFacts>('dead-letter-reasons');
    expect(code).toBe(0);
    expect(Object.values(report.facts.dlqDepths)).toEqual([1, 1, 1, 1, 1, 1]);
    for (const q of DLQS.map(n.q)) expect((await take(q)).messageId).not.toBe('stale');
    expect(await s.broker.depth(n.q('dlr.dead.watch'))).toBe(0);
  });

  it('declares quorum queues with the arguments of each path', async () => {
    const args = async (q: string) => {
      const info = await s.mgmt.queue(q);
      expect(info?.type, q).toBe('quorum');
      return info!.arguments;
    };
    expect(await args(n.q('dlr.queue-ttl'))).toMatchObject({
      'x-message-ttl': 100,
      'x-dead-letter-exchange': n.q('dlr.dead'),
      'x-dead-letter-routing-key': 'queue-ttl',
    });
    expect(await args(n.q('dlr.max-length'))).toMatchObject({ 'x-max-length': 1, 'x-overflow': 'drop-head' });
    expect(await args(n.q('dlr.delivery-limit'))).toMatchObject({ 'x-delivery-limit': 2 });
    const twice = await args(n.q('dlr.twice'));
    expect(twice['x-dead-letter-exchange']).toBe(n.q('dlr.dead'));
    expect(twice['x-dead-letter-routing-key']).toBeUndefined(); // dies with the message's own routing key
    expect(await args(n.q('dlr.twice.retry'))).toMatchObject({
      'x-message-ttl': 100,
      'x-dead-letter-exchange': n.q('dlr.business'),
      'x-dead-letter-routing-key': 'twice.again',
    });
    for (const q of [...DLQS.map(n.q), n.q('dlr.dead.watch')]) await args(q);
    const bindings = await s.mgmt.bindings();
    expect(bindings).toContainEqual(
      expect.objectContaining({ source: n.q('dlr.dead'), destination: n.q('dlr.dead.watch'), routing_key: '#' }),
    );
    expect(bindings).toContainEqual(
      expect.objectContaining({
        source: n.q('dlr.business'),
        destination: n.q('dlr.twice'),
        routing_key: 'twice.again',
      }),
    );
  });

  it('--namespace runs on its own queues', async () => {
    const [r] = await expectLabPasses(['dead-letter-reasons', '--namespace', 'i_dlr'], { line: LINE, runs: 1 });
    expect(r?.stdout).toContain('first=expired/i_dlr.dlr.queue-ttl/i_dlr.dlr.business');
    for (const q of DLQS) expect(await s.broker.depth(`i_dlr.${q}`)).toBe(1);
  });
});
