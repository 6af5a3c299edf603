/**
 * consumer-timeout against the real broker this run reaches (MQLAB_* variables): run on 4.3, 4.0
 * and 3.10 (3.10 on mqlab's own services, where the lab sets the broker-wide timeout). What the lab
 * expects per line comes from the capabilities; this file says it again as literals, from runs on
 * 4.3.6, 4.0.5 and 3.10.8, and asserts what the broker shows afterwards.
 */
import { describe, expect, it } from 'vitest';
import { atLeast } from '../../src/broker/capabilities.js';
import { setRabbitEnv } from '../../src/services/broker-env.js';
import { CONFIG, expectLabPasses, mqlab, runLabJson, useNamespace, useServices } from '../../test/helpers.js';

/** the facts these tests read */
interface TimeoutFacts {
  held: { heldMs: number; redelivery: { redelivered: boolean; deliveryCount: unknown; acquiredCount: unknown } };
  ignored: { consumersListed: number; waiting: number; deliveriesAfter: unknown[] };
}

const n = useNamespace(import.meta.url);

describe('consumer-timeout lab against the real broker', () => {
  const s = useServices();
  /** 4.3.0: the quorum queue times the delivery out itself and cancels the consumer */
  const is43 = () => atLeast(s.broker.version, 4, 3);

  it('passes twice in a row: the consumer cancelled (4.3) or its channel closed (406), the return counted or not', async () => {
    await expectLabPasses(['consumer-timeout'], {
      line: is43()
        ? /^consumer-timeout: brokerAction='basic.cancel, channel open' heldMs=\d+ redeliveryCount=absent ignoredCancel='deliveries=0 error=none waiting=2' classicQueue='none'$/
        : /^consumer-timeout: brokerAction='channel.close 406' heldMs=\d+ redeliveryCount=1 ignoredCancel='channel.close 406' classicQueue='channel.close 406'$/,
      pass: is43()
        ? {
            brokerAction: 'basic.cancel, channel open',
            redeliveryCount: 'absent',
            ignoredCancel: 'deliveries=0 error=none waiting=2',
            classicQueueTimeout: 'none',
          }
        : {
            brokerAction: 'channel.close 406',
            redeliveryCount: '1',
            ignoredCancel: 'channel.close 406',
            classicQueueTimeout: 'channel.close 406',
          },
    });
  });

  it('the redelivery, the consumer the broker still lists, empty queues, the broker settings set back', async () => {
    const { code, report } = await runLabJson<TimeoutFacts>('consumer-timeout', ['--timeout', '1500ms']);
    expect(code).toBe(0);
    expect(report.facts.held.heldMs).toBeGreaterThanOrEqual(1500);
    // 4.3: back uncounted (x-acquired-count 1); before: x-delivery-count 1 (4.0 the acquired count), no x-acquired-count
    expect(report.facts.held.redelivery).toEqual(
      is43()
        ? { redelivered: true, deliveryCount: 'absent', acquiredCount: 1 }
        : { redelivered: true, deliveryCount: 1, acquiredCount: 'absent' },
    );
    // 4.3: the cancelled consumer stays listed while its channel is open (it gets nothing: timed out)
    expect(report.facts.ignored.consumersListed).toBe(is43() ? 1 : 0);
    expect(report.facts.ignored.waiting).toBe(2);
    for (const q of ['held', 'ignored', 'classic']) expect(await s.broker.depth(n.q(`consumer-timeout.${q}`))).toBe(0);
    expect(await s.mgmt.policy(n.p('consumer-timeout'))).toBeNull();
    // below 4.3 the lab shortened the channel tick (and on 3.10 set the broker-wide timeout for a moment)
    const now = await setRabbitEnv(CONFIG, { channel_tick_interval: 60_000, consumer_timeout: 1_800_000 });
    expect(now).toEqual({ channel_tick_interval: 60_000, consumer_timeout: 1_800_000 });
  });

  it('refuses a bad --timeout with one line and exit code 2', async () => {
    const r = await mqlab(['consumer-timeout', '--timeout', '10ms']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('--timeout');
  });
});
