import { describe, expect, it } from 'vitest';
import { brokerAtPause, sameState, SETTLE_BOUND_MS, TICK_MS } from './broker-state.js';
import type { Broker } from './broker.js';
import type { Management, QueueStats } from './management.js';

/**
 * a broker whose state follows `script`, one entry per tick (each sleep of the clock is a tick):
 * the queues' counters (messages, ready, unacked of w and d), ready now (the passive declare), the binding
 */
interface Tick {
  counters: [number, number, number][];
  declare?: [number, number];
  bound: boolean;
}
function fakeBroker(script: Tick[]) {
  let tick = 0;
  const now = () => script[Math.min(tick, script.length - 1)]!;
  const i = (name: string) => (name === 'w' ? 0 : 1);
  const mgmt = {
    queueNowWithPolicy: (name: string): Promise<QueueStats | null> => {
      const [messages, ready, unacked] = now().counters[i(name)]!;
      return Promise.resolve({
        name,
        type: 'quorum',
        messages,
        ready,
        unacked,
        policy: i(name) === 0 ? 'p' : null,
        policyDefinition: i(name) === 0 ? { 'message-ttl': 5 } : null,
        consumers: 0,
        arguments: {},
      });
    },
    exchangeBindings: () =>
      Promise.resolve(
        now().bound ? [{ source: 'x', destination: 'd', destination_type: 'queue' as const, routing_key: 'k' }] : [],
      ),
  } as unknown as Management;
  const broker = {
    depth: (name: string) => Promise.resolve(now().declare?.[i(name)] ?? now().counters[i(name)]![1]),
  } as unknown as Broker;
  let t = 0;
  const clock = {
    sleep: (ms: number) => ((t += ms), tick++, Promise.resolve()),
    now: () => t,
  };
  return { mgmt, broker, clock };
}

const lab = { queues: ['w', 'd'], exchanges: ['x'] };

describe('the broker at a pause', () => {
  it('settled: reads again a tick later until two current readings agree; all three counts of a queue from one answer', async () => {
    const { mgmt, broker, clock } = fakeBroker([
      {
        counters: [
          [3, 1, 1],
          [1, 1, 0],
        ],
        declare: [1, 0],
        bound: true,
      }, // d's counters a tick behind
      {
        counters: [
          [3, 1, 1],
          [0, 0, 0],
        ],
        bound: false,
      },
      {
        counters: [
          [3, 1, 1],
          [0, 0, 0],
        ],
        bound: false,
      },
    ]);
    const r = await brokerAtPause(broker, mgmt, lab, 'settled', clock);
    expect(r.broker.reading).toBe('settled');
    expect(clock.now()).toBe(2 * TICK_MS);
    expect(r.queues).toEqual([
      { queue: 'w', ready: 1, unacked: 1, held: 1 },
      { queue: 'd', ready: 0, unacked: 0, held: 0 },
    ]);
    expect(r.broker.bindings).toEqual([]);
    expect(r.broker.policies).toEqual([
      { name: 'p', definition: { 'message-ttl': 5 } },
      { name: null, definition: {} },
    ]);
  });

  it('changing: never two alike within the bound, the last reading, said so', async () => {
    const script = Array.from({ length: 20 }, (_, i) => ({
      counters: [[i, i, 0] as [number, number, number], [0, 0, 0] as [number, number, number]],
      bound: true,
    }));
    const { mgmt, broker, clock } = fakeBroker(script);
    const r = await brokerAtPause(broker, mgmt, lab, 'settled', clock);
    expect(r.broker.reading).toBe('changing');
    expect(clock.now()).toBeLessThanOrEqual(SETTLE_BOUND_MS);
    expect(r.broker.bindings).toEqual([{ exchange: 'x', queue: 'd', key: 'k' }]);
  });

  it('once: one reading; a queue whose counters are behind ready now shows ready now, unacked and held unknown', async () => {
    const { mgmt, broker, clock } = fakeBroker([
      {
        counters: [
          [2, 2, 0],
          [1, 1, 0],
        ],
        declare: [2, 0],
        bound: true,
      },
    ]);
    const r = await brokerAtPause(broker, mgmt, lab, 'once', clock);
    expect(r.broker.reading).toBe('once');
    expect(r.queues).toEqual([
      { queue: 'w', ready: 2, unacked: 0, held: 0 },
      { queue: 'd', ready: 0, unacked: null, held: null },
    ]);
    expect(clock.now()).toBe(0);
  });

  it('ready-only: the declare’s ready, unacked and held not read', async () => {
    const { mgmt, broker, clock } = fakeBroker([
      {
        counters: [
          [0, 0, 0],
          [0, 0, 0],
        ],
        declare: [4, 0],
        bound: true,
      },
    ]);
    const hop = await brokerAtPause(broker, mgmt, lab, 'ready-only', clock);
    expect(hop.broker.reading).toBe('ready-only');
    expect(hop.queues).toEqual([
      { queue: 'w', ready: 4, unacked: null, held: null },
      { queue: 'd', ready: 0, unacked: null, held: null },
    ]);
  });

  it('a reading the broker did not fully answer is never "the same"', () => {
    const ok = {
      queues: [{ queue: 'w', ready: 0, unacked: 0, held: 0 }],
      broker: { at: '', reading: 'once' as const, bindings: [], policies: [{ name: null, definition: {} }] },
    };
    expect(sameState(ok, structuredClone(ok))).toBe(true);
    const noBindings = { ...ok, broker: { ...ok.broker, bindings: null } };
    expect(sameState(noBindings, noBindings)).toBe(false);
    const noPolicy = { ...ok, broker: { ...ok.broker, policies: [null] } };
    expect(sameState(noPolicy, noPolicy)).toBe(false);
  });
});
