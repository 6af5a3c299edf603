import { describe, expect, it } from 'vitest';
import type { ConsumerRecord } from './consumer.js';
import { account, ackedBeforeCommit, expectedOutcome, heldOutcome } from './verdicts.js';

const rec = (r: Partial<ConsumerRecord>): ConsumerRecord => ({
  deliveries: [],
  attempts: [],
  acks: [],
  givenBack: [],
  ...r,
});
const tryAt = (id: string, delivery: number, seq: number, ok: boolean) => ({ id, delivery, at: seq, seq, ok });

describe('db-outage verdicts', () => {
  it('the held delivery: redelivered (came back with the flag, then committed), kept (committed on its first delivery), lost', () => {
    const back = rec({
      deliveries: [
        { id: 'a', delivery: 1, redelivered: false, at: 1 },
        { id: 'a', delivery: 2, redelivered: true, at: 2 },
      ],
      attempts: [tryAt('a', 1, 1, false), tryAt('a', 2, 2, true)],
    });
    expect(heldOutcome(back, 'a')).toBe('redelivered');
    expect(
      heldOutcome(
        rec({
          deliveries: [{ id: 'a', delivery: 1, redelivered: false, at: 1 }],
          attempts: [tryAt('a', 1, 1, false), tryAt('a', 1, 2, true)],
        }),
        'a',
      ),
    ).toBe('kept');
    expect(heldOutcome(rec({ attempts: [tryAt('a', 1, 1, false)] }), 'a')).toBe('lost');
  });

  it('expected outcome from the observed times: back later than the budget → redelivered, clearly sooner → kept, at the edge → no verdict', () => {
    expect(expectedOutcome(1000, 5000, 1000, 400)).toBe('redelivered');
    expect(expectedOutcome(1000, 1300, 1000, 400)).toBe('kept');
    expect(expectedOutcome(1000, 2200, 1000, 400)).toBeNull();
    expect(expectedOutcome(null, null, 1000, 400)).toBe('kept'); // no failure, no outage
  });

  it('accounts rows per id: missing ids, rows beyond the first', () => {
    expect(
      account(
        ['a', 'b', 'c'],
        [
          { message_id: 'a', n: 1 },
          { message_id: 'b', n: 3 },
        ],
      ),
    ).toEqual({ lost: ['c'], duplicates: 2, rows: 4 });
  });

  it('an ack before the commit of its id (or without any commit) is counted', () => {
    const r = rec({
      attempts: [tryAt('a', 1, 1, true), tryAt('b', 1, 4, true)],
      acks: [
        { id: 'a', at: 2, seq: 2 },
        { id: 'b', at: 3, seq: 3 },
        { id: 'c', at: 5, seq: 5 },
      ],
    });
    expect(ackedBeforeCommit(r)).toEqual(['b', 'c']);
  });
});
