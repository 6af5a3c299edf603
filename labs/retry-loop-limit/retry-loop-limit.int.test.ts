/**
 * retry-loop-limit against the real broker this run reaches (MQLAB_* variables): run it against
 * 4.3, 4.0 and 3.10. The lab's expected values per line come from the capabilities; this file
 * says them again as literals, from runs on 4.3.6, 4.0.5 and 3.10.8, and asserts what the broker
 * shows after.
 */
import { describe, expect, it } from 'vitest';
import { atLeast } from '../../src/broker/capabilities.js';
import { expectLabPasses, runLabJson, useNamespace, useServices } from '../../test/helpers.js';

/** the facts these tests read */
interface LoopFacts {
  looped: { trail: string[]; leftWait: string[]; requeueCounts: (number | string)[] };
  nacked: { trail: string[]; leftWait: string[]; requeueCounts: (number | string)[] };
  fresh: { trail: string[]; leftWait: string[] };
}

const n = useNamespace(import.meta.url);

describe('retry-loop-limit lab against the real broker', () => {
  const s = useServices();
  const is4 = () => atLeast(s.broker.version, 4, 0);
  /** 4.3.0: the limit compares the delivery count, the one the loop carried */
  const is43 = () => atLeast(s.broker.version, 4, 3);
  const LINES = {
    '4.3':
      "retry-loop-limit: loopDeliveryCounts=[absent, 1, 2, 3, 4] requeuesUntilDeadLetter=1 nacksUntilDeadLetter=1 deadLetter=delivery_limit cycleAfterLimit='dropped on its way into the wait queue' freshLimitCycle='dropped on its second arrival in work'",
    '4.0':
      "retry-loop-limit: loopDeliveryCounts=[absent, 1, 2, 3, 4] requeuesUntilDeadLetter=3 nacksUntilDeadLetter=3 deadLetter=delivery_limit cycleAfterLimit='dropped on its way into the wait queue' freshLimitCycle='dropped on its second arrival in work'",
    '3.10':
      "retry-loop-limit: loopDeliveryCounts=[absent, absent, absent, absent, absent] requeuesUntilDeadLetter=3 nacksUntilDeadLetter=3 deadLetter=delivery_limit cycleAfterLimit='back in work' freshLimitCycle='dropped on its second arrival in work'",
  };

  it('passes twice in a row: the count the loop gathered, the requeues the limit took, the cycle dropped (4.x) or looping (3.10)', async () => {
    await expectLabPasses(['retry-loop-limit'], {
      line: LINES[is43() ? '4.3' : is4() ? '4.0' : '3.10'],
      pass: { deadLetterReason: 'delivery_limit', freshLimitCycle: 'dropped on its second arrival in work' },
    });
  });

  it('the count a requeued delivery shows after the laps: 4.3 the carried one, 4.0–4.2 the acquired count from 1', async () => {
    const { code, report } = await runLabJson<LoopFacts>('retry-loop-limit');
    expect(code).toBe(0);
    // 4.3: dead-lettered by the first requeue, so no requeued delivery is seen; 4.0–4.2: x-delivery-count
    // falls back from 4 to the acquired count (1, 2); 3.10: the delivery count of this queue (1, 2)
    const after = is43() ? [] : [1, 2];
    expect(report.facts.looped.requeueCounts).toEqual(after);
    expect(report.facts.nacked.requeueCounts).toEqual(after);
  });

  it('the trails show each copy the broker dead-lettered, and every queue ends empty', async () => {
    const { code, report } = await runLabJson<LoopFacts>('retry-loop-limit');
    expect(code).toBe(0);
    // 4 rejected laps, then the delivery_limit copy; through the wait queue: 4 laps (4.x: the limit copy is dropped on its way in)
    expect(report.facts.looped.trail).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'delivery_limit']);
    expect(report.facts.looped.leftWait).toEqual(
      is4() ? ['expired', 'expired', 'expired', 'expired'] : ['expired', 'expired', 'expired', 'expired', 'expired'],
    );
    expect(report.facts.nacked.trail).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'delivery_limit']);
    expect(report.facts.fresh.trail).toEqual(['delivery_limit']);
    expect(report.facts.fresh.leftWait).toEqual(['expired']);
    for (const q of ['work', 'wait', 'trail', 'expired-trail'])
      expect(await s.broker.depth(n.q(`retry-loop.${q}`))).toBe(0);
  });
});
