import { describe, expect, it } from 'vitest';
import type { LabEvent } from '../../src/log/events.js';
import { countStatus, trailOf } from './verdicts.js';

const ev = (source: string, fields: Record<string, string>): LabEvent => ({ source, fields });
const P = '01JMQ00000000000000000000P';
const events: LabEvent[] = [
  ev('producer', { messageId: '1', status: 'confirmed' }),
  ev('producer', { messageId: P, status: 'confirmed' }),
  ev('producer', { confirmed: '2', status: 'done' }),
  ev('consumer', {
    timestamp: '2026-10-07T10:28:20.637Z',
    messageId: P,
    attempt: '1',
    xDeath: 'none',
    status: 'received',
  }),
  ev('consumer', { timestamp: '2026-10-07T10:28:20.700Z', messageId: P, attempt: '1', status: 'retry' }),
  ev('consumer', { timestamp: '2026-10-07T10:28:21.000Z', messageId: '1', attempt: '1', status: 'received' }),
  ev('consumer', {
    timestamp: '2026-10-07T10:28:21.705Z',
    messageId: P,
    attempt: '2',
    xDeath: 'orders.retry:expired:1,orders.work:rejected:1',
    status: 'received',
  }),
  ev('consumer', {
    timestamp: '2026-10-07T10:28:22.760Z',
    messageId: P,
    attempt: '3',
    xDeath: 'orders.retry:expired:2,orders.work:rejected:2',
    status: 'received',
  }),
  ev('consumer', { messageId: P, attempt: '3', status: 'poison_to_dlq' }),
];

describe('countStatus', () => {
  it('counts one source and status, optionally for one message', () => {
    expect(countStatus(events, 'producer', 'confirmed')).toBe(2);
    expect(countStatus(events, 'consumer', 'received')).toBe(4);
    expect(countStatus(events, 'consumer', 'received', P)).toBe(3);
    expect(countStatus(events, 'consumer', 'poison_to_dlq', '1')).toBe(0);
  });
});

describe('trailOf', () => {
  it("follows one message's deliveries: attempts, gaps, x-death", () => {
    const t = trailOf(events, P);
    expect(t.attempts).toEqual([1, 2, 3]);
    expect(t.gapsMs).toEqual([1068, 1055]);
    expect(t.deaths[0]).toEqual([]);
    expect(t.deaths[2]?.[0]).toEqual({ queue: 'orders.retry', reason: 'expired', count: 2 });
  });

  it('is empty for a message never received', () => {
    expect(trailOf(events, 'nope')).toEqual({ attempts: [], gapsMs: [], deaths: [] });
  });
});
