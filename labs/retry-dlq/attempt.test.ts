import { describe, expect, it } from 'vitest';
import { attemptOf, deathSummary, dlqHeaders, parseDeathSummary } from './attempt.js';

// what the broker delivers with the third attempt: newest entry first, the retry queue's expiry on top
const third = {
  eventType: 'order.created',
  'x-first-death-queue': 'orders.work',
  'x-first-death-reason': 'rejected',
  'x-delivery-count': 0,
  'x-death': [
    {
      count: 2,
      reason: 'expired',
      queue: 'orders.retry',
      exchange: '',
      'routing-keys': ['orders.retry'],
      time: { '!': 'timestamp', value: 1 },
    },
    {
      count: 2,
      reason: 'rejected',
      queue: 'orders.work',
      exchange: '',
      'routing-keys': ['orders.work'],
      time: { '!': 'timestamp', value: 1 },
    },
  ],
};

describe('attemptOf', () => {
  it('is 1 for a message that never died', () => {
    expect(attemptOf({}, 'orders.work')).toBe(1);
    expect(attemptOf(undefined, 'orders.work')).toBe(1);
  });

  it("counts the work queue's rejected entry, not x-death[0]", () => {
    expect(attemptOf(third, 'orders.work')).toBe(3);
    // a longer stay in another queue must not move the count: only (orders.work, rejected) counts
    const other = { 'x-death': [{ count: 7, reason: 'expired', queue: 'orders.retry' }, ...third['x-death'].slice(1)] };
    expect(attemptOf(other, 'orders.work')).toBe(3);
  });

  it('ignores entries of the same queue with another reason, and of other queues', () => {
    const h = {
      'x-death': [
        { count: 4, reason: 'delivery_limit', queue: 'orders.work' },
        { count: 1, reason: 'rejected', queue: 'ns.orders.work' },
      ],
    };
    expect(attemptOf(h, 'orders.work')).toBe(1);
    expect(attemptOf(h, 'ns.orders.work')).toBe(2);
  });
});

describe('deathSummary / parseDeathSummary', () => {
  it('keeps the broker order and round-trips', () => {
    const s = deathSummary(third);
    expect(s).toBe('orders.retry:expired:2,orders.work:rejected:2');
    expect(parseDeathSummary(s)).toEqual([
      { queue: 'orders.retry', reason: 'expired', count: 2 },
      { queue: 'orders.work', reason: 'rejected', count: 2 },
    ]);
  });

  it('says none when there is no history', () => {
    expect(deathSummary({})).toBe('none');
    expect(parseDeathSummary('none')).toEqual([]);
    expect(parseDeathSummary(undefined)).toEqual([]);
  });
});

describe('dlqHeaders', () => {
  it("keeps the application's headers, drops the broker's x-headers, adds why it gave up", () => {
    expect(dlqHeaders(third, 3, 'orders.work', 'check_violation')).toEqual({
      eventType: 'order.created',
      attempts: 3,
      failedQueue: 'orders.work',
      error: 'check_violation',
    });
  });
});
