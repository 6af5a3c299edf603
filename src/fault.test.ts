import { describe, expect, it } from 'vitest';
import { faultsFor } from './fault.js';
import { UsageError } from './errors.js';

describe('faultsFor', () => {
  it('picks the entries of one lab', () => {
    expect([...faultsFor('order-timeout', 'order-timeout:no-sweeper, retry:x,order-timeout:gate-off')]).toEqual(['no-sweeper', 'gate-off']);
    expect(faultsFor('retry', 'order-timeout:no-sweeper').size).toBe(0);
  });
  it('is empty when unset', () => {
    expect(faultsFor('retry', undefined).size).toBe(0);
    expect(faultsFor('retry', '').size).toBe(0);
  });
  it('refuses a malformed entry', () => {
    expect(() => faultsFor('retry', 'retry')).toThrow(UsageError);
  });
});
