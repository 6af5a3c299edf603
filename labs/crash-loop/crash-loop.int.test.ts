/**
 * crash-loop against the real broker this run reaches (MQLAB_* variables): run it against 4.3, 4.0
 * and 3.10. What the lab expects per line comes from the capabilities; this file says it again
 * as literals, from runs on 4.3.6, 4.0.5 and 3.10.8, and asserts what the broker shows afterwards.
 */
import { describe, expect, it } from 'vitest';
import { atLeast } from '../../src/broker/capabilities.js';
import { expectLabPasses, runLabJson, useNamespace, useServices } from '../../test/helpers.js';
import { must } from '../../src/core/must.js';
/** the facts these tests read */
interface CrashLoopFacts {
  processes: { delivered: boolean }[];
  deadLetter: unknown;
  delayed: unknown;
}

const n = useNamespace(import.meta.url);

describe('crash-loop lab against the real broker', () => {
  const s = useServices();
  const is43 = () => atLeast(s.broker.version, 4, 3);
  /** 4.0.0: a copy dead-lettered from a quorum queue carries its failed deliveries (the crashes) */
  const is4 = () => atLeast(s.broker.version, 4, 0);

  it('passes twice in a row: three SIGKILLed consumers, then the broker dead-letters the poison pill (delivery_limit)', async () => {
    const line43 =
      /^crash-loop: crashes=3 deliveryCounts=\[absent, 1, 2\] acquiredCounts=\[absent, 1, 2\] deadLetter=delivery_limit nackLoop='acked after 4 deliveries' crashRedeliveryGapMs=\d+$/;
    // 4.0–4.2 and 3.10: no x-acquired-count, a nack counts; the dead letter carries the crashes from 4.0
    const lineBefore43 =
      "crash-loop: crashes=3 deliveryCounts=[absent, 1, 2] acquiredCounts=[absent, absent, absent] deadLetter=delivery_limit nackLoop='dead-lettered after 3 deliveries'";
    await expectLabPasses(['crash-loop'], {
      line: is43() ? line43 : lineBefore43,
      pass: {
        crashExits: '137,137,137',
        deliveriesUntilDeadLetter: '3',
        deadLetterReason: 'delivery_limit',
        deliveryCounts: 'absent,1,2',
        deadLetterDeliveryCount: is4() ? '3' : 'absent',
        ...(is43()
          ? { acquiredCounts: 'absent,1,2', nackLoop: 'acked after 4 deliveries' }
          : { acquiredCounts: 'absent,absent,absent', nackLoop: 'dead-lettered after 3 deliveries' }),
      },
    });
  });

  it('the processes really died (SIGKILL), the delayed redelivery waited (4.3) or SKIP (4.0, 3.10), and every queue ends empty', async () => {
    expect.hasAssertions();
    const { code, report } = await runLabJson<CrashLoopFacts>('crash-loop');
    expect(code).toBe(0);
    for (const p of report.facts.processes.filter((p) => p.delivered))
      expect(p).toMatchObject({ exitCode: 137, signal: 'SIGKILL' });
    expect(report.facts.deadLetter).toMatchObject({ reason: 'delivery_limit', redelivered: is4() });
    const delayed = must(
      report.checks.find((c) => c.name === 'crashRedeliveryDelayedMs'),
      'the check crashRedeliveryDelayedMs',
    );
    if (is43()) {
      expect(delayed.actual).toBeGreaterThanOrEqual(1000);
      expect(report.facts.delayed).toMatchObject({ exitCode: 137, redeliveryDeliveryCount: 1 });
      expect(await s.mgmt.queue(n.q('crash-loop.delayed'))).toMatchObject({
        arguments: { 'x-delayed-retry-type': 'failed', 'x-delayed-retry-min': 2000 },
      });
    } else
      expect(delayed.skipped).toBe(
        `needs RabbitMQ 4.3 native delayed retry (this broker: ${s.broker.version} ignores x-delayed-retry-*)`,
      );
    for (const q of ['work', 'nack', 'delayed', 'dead']) expect(await s.broker.depth(n.q(`crash-loop.${q}`))).toBe(0);
  });
});
