import { describe, expect, it } from 'vitest';
import { deadLetterHistory, deathCount, firstDeath } from './xdeath.js';

// as the broker sends it after work → (rejected) → retry → (expired) → work → (rejected) → …
const headers = {
  'x-death': [
    {
      count: 2,
      reason: 'expired',
      queue: 'orders.retry',
      time: { '!': 'timestamp', value: 1764480000 },
      exchange: 'orders.retry.dlx',
      'routing-keys': ['orders.retry'],
    },
    {
      count: 2,
      reason: 'rejected',
      queue: 'orders.work',
      time: 1764479999,
      exchange: '',
      'routing-keys': ['orders.work'],
    },
  ],
  'x-first-death-reason': 'rejected',
  'x-first-death-queue': 'orders.work',
  'x-first-death-exchange': '',
};

describe('x-death', () => {
  it('parses every entry, newest first, as the broker ordered them', () => {
    const h = deadLetterHistory(headers);
    expect(h.map((e) => `${e.queue}/${e.reason}/${e.count}`)).toEqual([
      'orders.retry/expired/2',
      'orders.work/rejected/2',
    ]);
    expect(h[0]).toMatchObject({ exchange: 'orders.retry.dlx', routingKeys: ['orders.retry'], time: 1764480000 });
  });

  it('finds the count by queue and reason, not by position', () => {
    expect(deathCount(headers, 'orders.work', 'rejected')).toBe(2);
    expect(deathCount(headers, 'orders.work', 'expired')).toBe(0);
    expect(deathCount({}, 'orders.work', 'rejected')).toBe(0);
  });

  it('reads the x-first-death headers', () => {
    expect(firstDeath(headers)).toEqual({ reason: 'rejected', queue: 'orders.work', exchange: '' });
    expect(firstDeath(undefined)).toEqual({ reason: null, queue: null, exchange: null });
  });

  it('copes with counts the client decodes as bigint', () => {
    expect(deadLetterHistory({ 'x-death': [{ count: 3n, reason: 'rejected', queue: 'q' }] })[0]?.count).toBe(3);
  });
});
