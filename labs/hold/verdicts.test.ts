import { describe, expect, it } from 'vitest';
import type { QueueStats } from '../../src/broker/management.js';
import { evaluate } from '../../src/report/checks.js';
import { meta } from './meta.js';
import {
  emptyGraceMs,
  heldAfterDeliveryMs,
  mayClearPolicy,
  policyOnSource,
  sourceAfter,
  sourceWhileHeld,
  type StatsSeen,
} from './verdicts.js';

const q = (messages: number, ready = 0, unacked = 0, policy: string | null = 'me12-hold'): QueueStats => ({
  name: 'me12.retry.hold',
  type: 'quorum',
  messages,
  ready,
  unacked,
  policy,
  policyDefinition: null,
  consumers: 0,
  arguments: {},
});
const seen = (samples: [number, QueueStats][], more: Partial<StatsSeen> = {}): StatsSeen => ({
  source: 'me12.retry.hold',
  policy: 'me12-hold',
  samples: samples.map(([at, stats]) => ({ at, stats })),
  rejectedAt: 1000,
  brokerDelivered: true,
  deliveredAt: 4000,
  emptyWaitMs: 0,
  ...more,
});
const line = (s: StatsSeen, f: (s: StatsSeen) => ReturnType<typeof sourceAfter>) => {
  const r = evaluate(f(s));
  return r.skipped !== undefined ? 'SKIP' : `${r.pass ? 'PASS' : 'FAIL'} ${String(r.actual)}`;
};
const skipReason = (s: StatsSeen, f: (s: StatsSeen) => ReturnType<typeof sourceAfter>) => f(s).skipped ?? '';

describe('hold source verdicts', () => {
  it('mqlab services: held letter seen, then the empty source: both observed', () => {
    const s = seen([
      [900, q(0)],
      [2000, q(1)],
      [4500, q(0)],
    ]);
    expect(line(s, sourceWhileHeld)).toBe('PASS messages=1 ready=0 unacked=0');
    expect(line(s, sourceAfter)).toBe('PASS messages=0 ready=0 unacked=0');
    expect(line(s, policyOnSource)).toBe('PASS me12-hold');
    expect(emptyGraceMs(s, 2000)).toBe(2000); // 1000 ms lag + 1000 ms margin
  });

  it('an untuned broker: the counters never moved while the broker held and delivered the letter → SKIP, not PASS', () => {
    const s = seen([
      [900, q(0)],
      [3000, q(0)],
      [5000, q(0)],
    ]);
    expect(line(s, sourceWhileHeld)).toBe('SKIP');
    expect(line(s, sourceAfter)).toBe('SKIP');
    expect(line(s, policyOnSource)).toBe('PASS me12-hold'); // the queue record, not a counter
    expect(emptyGraceMs(s, 2000)).toBe(0);
  });

  it('counters slower than the window: no wait for the empty source, and the SKIP says so', () => {
    const late = seen([
      [900, q(0)],
      [3500, q(1)],
    ]);
    expect(emptyGraceMs(late, 2000)).toBe(0);
    expect(line(late, sourceWhileHeld)).toBe('PASS messages=1 ready=0 unacked=0');
    expect(skipReason(late, sourceAfter)).toContain('showed the held letter only 2500 ms after the rejection');
    const waited = seen(
      [
        [900, q(0)],
        [2000, q(1)],
      ],
      { emptyWaitMs: 2000 },
    );
    expect(skipReason(waited, sourceAfter)).toContain('did not refresh within the 2000 ms the lab waited');
  });

  it('nothing delivered: judged on the last sample (a dropped letter, a letter still held)', () => {
    const dropped = seen(
      [
        [900, q(0)],
        [3000, q(0)],
      ],
      { brokerDelivered: false, deliveredAt: null },
    );
    expect(line(dropped, sourceWhileHeld)).toBe('FAIL messages=0 ready=0 unacked=0');
    const stuck = seen(
      [
        [2000, q(1)],
        [6000, q(1)],
      ],
      { brokerDelivered: false, deliveredAt: null },
    );
    expect(line(stuck, sourceAfter)).toBe('FAIL messages=1 ready=0 unacked=0');
    expect(mayClearPolicy(stuck)).toBe(false);
    expect(mayClearPolicy(dropped)).toBe(true);
  });

  it("an earlier run's held letter still in the counters does not count until a reading showed none", () => {
    const stale = seen([
      [900, q(1)],
      [1500, q(1)],
      [4500, q(1)],
    ]);
    expect(line(stale, sourceWhileHeld)).toBe('SKIP');
    expect(skipReason(stale, sourceWhileHeld)).toContain('already before the rejection');
    expect(line(stale, sourceAfter)).toBe('SKIP');
    expect(emptyGraceMs(stale, 2000)).toBe(0); // no wait for counters that never showed this run's letter
    // the reading without a held letter may come after the rejection (a tick before it, read late)
    const cleared = seen([
      [900, q(1)],
      [1200, q(0)],
      [2000, q(1)],
      [4500, q(0)],
    ]);
    expect(line(cleared, sourceWhileHeld)).toBe('PASS messages=1 ready=0 unacked=0');
    expect(line(cleared, sourceAfter)).toBe('PASS messages=0 ready=0 unacked=0');
    // only gone after this run's letter left: the held readings before could all be the earlier letter
    const tooLate = seen([
      [900, q(1)],
      [2000, q(1)],
      [4500, q(0)],
    ]);
    expect(line(tooLate, sourceWhileHeld)).toBe('SKIP');
    expect(line(tooLate, sourceAfter)).toBe('SKIP');
  });

  it("nothing delivered and the counters still on an earlier run's letter: FAIL, never PASS", () => {
    const stale = seen(
      [
        [900, q(1)],
        [3000, q(1)],
      ],
      { brokerDelivered: false, deliveredAt: null },
    );
    expect(line(stale, sourceWhileHeld)).toBe(
      "FAIL no reading after an earlier run's letter left the counters (messages=1 ready=0 unacked=0)",
    );
    expect(mayClearPolicy(stale)).toBe(false);
  });

  it('the policy comes from the queue record: shown → PASS, never shown → FAIL, whatever the broker delivered', () => {
    const none = (messages: number) => q(messages, 0, 0, null);
    expect(
      line(
        seen([
          [900, none(0)],
          [1500, q(1)],
        ]),
        policyOnSource,
      ),
    ).toBe('PASS me12-hold');
    // a policy that matches nothing (wrong-pattern): no reading shows it, and no SKIP hides that
    expect(
      line(
        seen([
          [900, none(0)],
          [1500, none(0)],
        ]),
        policyOnSource,
      ),
    ).toBe('FAIL null');
    expect(line(seen([], { brokerDelivered: false, deliveredAt: null }), policyOnSource)).toBe('FAIL null');
  });

  it("the floor adds the part of the queue's tick after the delivery the run sat out", () => {
    // delivered at 4000; still held at 4100 and 4600; empty at 4650: the tick came after 4600
    const s = seen([
      [900, q(0)],
      [2000, q(1)],
      [4100, q(1)],
      [4600, q(1)],
      [4650, q(0)],
    ]);
    expect(heldAfterDeliveryMs(s)).toBe(600);
    expect(meta.floorMs + (meta.serviceWaitMs?.({ heldAfterDeliveryMs: heldAfterDeliveryMs(s) }) ?? 0)).toBe(3600);
    // the first reading after the delivery already empty: no wait of the tick's
    expect(
      heldAfterDeliveryMs(
        seen([
          [900, q(0)],
          [2000, q(1)],
          [4100, q(0)],
        ]),
      ),
    ).toBe(0);
    // never shown empty (SKIP): the lab's wait bought nothing the experiment needs
    const skipped = seen([
      [900, q(0)],
      [2000, q(1)],
      [4100, q(1)],
    ]);
    expect(heldAfterDeliveryMs(skipped)).toBeNull();
    expect(meta.serviceWaitMs?.({ heldAfterDeliveryMs: null })).toBeNull();
  });

  it('two letters held is a FAIL, not a pass', () => {
    expect(
      line(
        seen([
          [900, q(0)],
          [2000, q(2)],
        ]),
        sourceWhileHeld,
      ),
    ).toBe('FAIL messages=2 ready=0 unacked=0');
  });
});
