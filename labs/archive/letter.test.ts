import { describe, expect, it } from 'vitest';
import { archiveRecord, businessIdOf } from './letter.js';

// what the broker stamps on an order that expired in the pay-timeout queue and was then
// rejected on the business queue: x-death newest first, x-first-death-* for the first death
const twiceDead = {
  'x-first-death-exchange': 'archive.exchange.business',
  'x-first-death-queue': 'archive.order.pay.timeout.queue',
  'x-first-death-reason': 'expired',
  'x-death': [
    {
      count: 1,
      reason: 'rejected',
      queue: 'archive.order.business.queue',
      time: 1700000005,
      exchange: 'archive.exchange.business',
      'routing-keys': ['order.created'],
    },
    {
      count: 1,
      reason: 'expired',
      queue: 'archive.order.pay.timeout.queue',
      time: 1700000004,
      exchange: 'archive.exchange.business',
      'routing-keys': ['order.pay.pending'],
    },
  ],
};

describe('businessIdOf', () => {
  it('reads orderId from a JSON payload', () => {
    expect(businessIdOf('{"orderId":"A12345","retryCount":2}')).toBe('A12345');
    expect(businessIdOf('{"orderId":12345}')).toBe('12345');
  });
  it.each([
    '{"note":"no id"}',
    '{"orderId":""}',
    '{"orderId":null}',
    'not json',
    '[1,2]',
    'null',
    '{"orderId":{"x":1}}',
  ])('is null for %j', (p) => {
    expect(businessIdOf(p)).toBeNull();
  });
});

describe('archiveRecord', () => {
  it('takes the origin from the first death and the last death from x-death[0]', () => {
    const r = archiveRecord({ body: '{"orderId":"A1002"}', messageId: 'm-2', headers: twiceDead });
    expect(r).toEqual({
      businessId: 'A1002',
      messageId: 'm-2',
      payload: '{"orderId":"A1002"}',
      originalExchange: 'archive.exchange.business',
      originalRoutingKey: 'order.pay.pending',
      firstDeathReason: 'expired',
      firstDeathQueue: 'archive.order.pay.timeout.queue',
      firstDeathAt: new Date(1700000004_000),
      lastDeathReason: 'rejected',
      lastDeathQueue: 'archive.order.business.queue',
      lastDeathAt: new Date(1700000005_000),
      attempts: 2,
    });
  });

  it('adds up repeated deaths of the same (queue, reason)', () => {
    const headers = {
      'x-death': [{ count: 3, reason: 'rejected', queue: 'w', time: 1, exchange: 'x', 'routing-keys': ['k'] }],
    };
    const r = archiveRecord({ body: '{"orderId":"A1"}', messageId: undefined, headers });
    expect(r).toMatchObject({
      attempts: 3,
      firstDeathQueue: 'w',
      firstDeathReason: 'rejected',
      originalExchange: 'x',
      originalRoutingKey: 'k',
      messageId: null,
    });
  });

  it('leaves the death fields null for a message that never died (the table refuses it)', () => {
    const r = archiveRecord({ body: 'x', messageId: 'm', headers: {} });
    expect(r).toMatchObject({
      businessId: null,
      attempts: 0,
      firstDeathReason: null,
      lastDeathAt: null,
      originalRoutingKey: null,
    });
  });
});
