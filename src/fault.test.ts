import { describe, expect, it } from 'vitest';
import { faultsFor } from './fault.js';

describe('MQLAB_FAULT', () => {
  it('names faults per lab, comma separated', () => {
    const env = { MQLAB_FAULT: 'outbox:mark-first, hold:x,outbox:no-dedupe' };
    expect([...faultsFor('outbox', env)]).toEqual(['mark-first', 'no-dedupe']);
    expect([...faultsFor('retry', env)]).toEqual([]);
  });

  it('is empty when unset or malformed', () => {
    expect(faultsFor('outbox', {}).size).toBe(0);
    expect(faultsFor('outbox', { MQLAB_FAULT: 'outbox' }).size).toBe(0);
  });
});
