import { describe, expect, it } from 'vitest';
import { tally } from './verdicts.js';

describe('broker-restart tally', () => {
  const base = {
    ids: ['a', 'b', 'c', 'd'],
    held: ['a'],
    confirmedAtStop: ['a', 'b', 'c'],
    goneAt: 100,
    lostAtRestart: ['d'],
    confirmedNow: new Set(['a', 'b', 'c', 'd']),
  };

  it('counts only what happened after the node was gone: held ids back with redelivered=true, held messages delivered', () => {
    const t = tally({
      ...base,
      rows: ['a', 'b', 'c', 'd'].map((message_id) => ({ message_id, n: 1 })),
      deliveries: [
        { id: 'a', redelivered: false, at: 50 },
        { id: 'a', redelivered: true, at: 150 },
        { id: 'b', redelivered: false, at: 160 },
        { id: 'c', redelivered: true, at: 90 }, // before the stop: not a survivor
        { id: 'd', redelivered: false, at: 170 },
      ],
    });
    expect(t).toMatchObject({
      heldRedelivered: 1,
      resentConfirmed: 1,
      survived: 2,
      rows: 4,
      duplicates: 0,
      missing: [],
      firstDeliveryAfter: 150,
    });
  });

  it('missing ids, duplicate rows, unconfirmed ids never confirmed', () => {
    const t = tally({ ...base, confirmedNow: new Set(['a']), rows: [{ message_id: 'a', n: 3 }], deliveries: [] });
    expect(t).toMatchObject({
      heldRedelivered: 0,
      resentConfirmed: 0,
      survived: 0,
      rows: 3,
      duplicates: 2,
      missing: ['b', 'c', 'd'],
      firstDeliveryAfter: null,
    });
  });
});
