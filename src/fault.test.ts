import { describe, expect, it } from 'vitest';
import { faultsFor } from './fault.js';
import { UsageError } from './errors.js';

const env = (MQLAB_FAULT?: string) => ({ MQLAB_FAULT });

describe('faultsFor', () => {
  it('picks the entries of one lab', () => {
    expect([...faultsFor('order-timeout', env('order-timeout:no-sweeper, retry:x,order-timeout:gate-off'))]).toEqual(['no-sweeper', 'gate-off']);
    expect(faultsFor('retry', env('order-timeout:no-sweeper')).size).toBe(0);
  });
  it('is empty when unset', () => {
    expect(faultsFor('retry', env(undefined)).size).toBe(0);
    expect(faultsFor('retry', env('')).size).toBe(0);
  });
  it('refuses a malformed entry', () => {
    expect(() => faultsFor('retry', env('retry'))).toThrow(UsageError);
    expect(() => faultsFor('retry', env('retry:'))).toThrow(UsageError);
  });
});
