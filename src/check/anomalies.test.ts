import { describe, expect, it } from 'vitest';
import { judge, type Ledger } from './anomalies.js';

const base: Ledger = {
  published: [
    { id: 'a', kind: 'work' },
    { id: 'b', kind: 'work' },
  ],
  effects: new Map([
    ['a', 1],
    ['b', 1],
  ]),
  dead: [],
  inQueue: [],
  deliveries: new Map(),
  poisonDeliveries: 5,
};

const kinds = (l: Partial<Ledger>) => judge({ ...base, ...l }).map((a) => `${a.kind}:${a.messageIds.join(',')}`);

describe('judge', () => {
  it('finds nothing wrong when each message has one effect', () => expect(kinds({})).toEqual([]));
  it('lost: no effect, not dead-lettered, not in the queue', () =>
    expect(kinds({ effects: new Map([['a', 1]]) })).toEqual(['lost:b']));
  it('a dead-lettered message is not lost', () =>
    expect(kinds({ effects: new Map([['a', 1]]), dead: [{ id: 'b', reason: 'rejected' }] })).toEqual([]));
  it('duplicated: two effects', () =>
    expect(
      kinds({
        effects: new Map([
          ['a', 2],
          ['b', 1],
        ]),
      }),
    ).toEqual(['duplicated:a']));
  it('stuck: still in the queue', () =>
    expect(kinds({ effects: new Map([['a', 1]]), inQueue: ['b'] })).toEqual(['stuck:b']));
  it('unexpected: an effect for an id never published', () =>
    expect(
      kinds({
        effects: new Map([
          ['a', 1],
          ['b', 1],
          ['unknown', 1],
        ]),
      }),
    ).toEqual(['unexpected:unknown']));
  const withPoison = (l: Partial<Ledger>) =>
    kinds({ published: [...base.published, { id: 'p', kind: 'poison' }], ...l });
  it('a poison parked by the consumer within its budget passes', () =>
    expect(withPoison({ dead: [{ id: 'p', reason: 'rejected' }], deliveries: new Map([['p', 1]]) })).toEqual([]));
  it('a poison parked by the delivery limit, or after too many deliveries, is not parked', () => {
    expect(withPoison({ dead: [{ id: 'p', reason: 'delivery_limit' }], deliveries: new Map([['p', 21]]) })).toEqual([
      'poison-not-parked:p',
    ]);
    expect(withPoison({ dead: [{ id: 'p', reason: 'rejected' }], deliveries: new Map([['p', 6]]) })).toEqual([
      'poison-not-parked:p',
    ]);
  });
  it('messages left behind an unparked poison are counted under it, not as stuck', () =>
    expect(withPoison({ effects: new Map([['a', 1]]), inQueue: ['p', 'b'] })).toEqual(['poison-not-parked:p,b']));
  it('a poison settled without a dead letter was dropped', () =>
    expect(withPoison({ deliveries: new Map([['p', 1]]) })).toEqual(['poison-not-parked:p']));
});
