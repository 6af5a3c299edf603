/**
 * Management.queueNow / queueNowWithPolicy on the broker at hand (CI runs it on 4.3 and on 3.10):
 * the queue's record names a policy as soon as its PUT has answered, with that policy's definition on
 * every line; the counts follow the quorum queue's counters, a tick late at most.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel } from 'amqplib';
import { atLeast, capabilities } from './capabilities.js';
import { deadLetterPolicy } from '../kit/dead-letter.js';
import { Management } from './management.js';
import { CONFIG, useNamespace, useServices } from '../../test/helpers.js';

const n = useNamespace(import.meta.url);
const QUEUE = n.q('mgmt.now');
const POLICY = n.p('mgmt-now');

describe('the queue as the broker holds it now', () => {
  const s = useServices();
  let ch: Channel;

  beforeAll(async () => {
    ch = await s.broker.connection.createChannel();
    await s.mgmt.deletePolicy(POLICY);
    await ch.deleteQueue(QUEUE).catch(() => {});
    await ch.assertQueue(QUEUE, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  });
  afterAll(async () => {
    await s.mgmt.deletePolicy(POLICY);
    await ch.deleteQueue(QUEUE).catch(() => {});
    await ch.close().catch(() => {});
  });

  it('names each policy with its definition in the first reading after its PUT', async () => {
    const caps = capabilities(s.broker.version);
    // a fresh client: its first reading finds out which form of the request this broker answers
    const mgmt = new Management(CONFIG.mgmtUrl, CONFIG.vhost);
    for (const strategy of ['default', 'at-least-once'] as const) {
      const policy = deadLetterPolicy(
        { name: POLICY, pattern: n.exact(QUEUE), dlx: n.x('mgmt.now.dlx'), routingKey: 'failed', strategy },
        caps,
      );
      await mgmt.putPolicy(policy);
      const q = await mgmt.queueNowWithPolicy(QUEUE);
      expect(q?.policy).toBe(POLICY);
      expect(q?.policyDefinition).toEqual(policy.definition);
      // from 4.2.5 the listing has the record's effective definition (format_policy_fields, #15182);
      // before, the policy's own is asked for (measured on 4.3.6, 4.0.5 and 3.10.8)
      expect(q?.policyFrom).toBe(atLeast(s.broker.version, 4, 2, 5) ? undefined : 'policy');
    }
  });

  it("counts a confirmed publish once the quorum queue's tick has written its counters", async () => {
    await ch.purgeQueue(QUEUE);
    await s.broker.sendConfirmed(QUEUE, 'counted');
    const q = await s.mgmt.queueWhen(QUEUE, (x) => x.ready === 1 && x.messages === 1, 15_000, 100, 'now');
    expect(q).toMatchObject({ ready: 1, unacked: 0, messages: 1 });
  });
});
