import { describe, expect, it } from 'vitest';
import { faultEntries, faultsFor, refuseUnknownLabs } from './fault.js';
import { UsageError } from '../core/errors.js';

const env = (MQLAB_FAULT?: string) => ({ MQLAB_FAULT });
const lab = (name: string, ...faults: string[]) => ({ name, faults: Object.fromEntries(faults.map((f) => [f, {}])) });
const orderTimeout = lab('order-timeout', 'no-sweeper', 'gate-off');
const retry = lab('retry', 'skip-delay');

describe('faultsFor', () => {
  it('picks the entries of one lab', () => {
    expect([...faultsFor(orderTimeout, env('order-timeout:no-sweeper, retry:x,order-timeout:gate-off'))]).toEqual([
      'no-sweeper',
      'gate-off',
    ]);
    expect(faultsFor(retry, env('order-timeout:no-sweeper')).size).toBe(0);
  });
  it('is empty when unset', () => {
    expect(faultsFor(retry, env(undefined)).size).toBe(0);
    expect(faultsFor(retry, env('')).size).toBe(0);
  });
  it('refuses a malformed entry', () => {
    expect(() => faultsFor(retry, env('retry'))).toThrow(UsageError);
    expect(() => faultsFor(retry, env('retry:'))).toThrow(UsageError);
    expect(() => faultEntries(env('retry:a,:b'))).toThrow(UsageError);
  });
  it('refuses a variant the lab does not declare, listing the declared ones', () => {
    expect(() => faultsFor(retry, env('retry:skip-dealy'))).toThrow(
      "MQLAB_FAULT names 'skip-dealy', which is not a broken variant of retry",
    );
    expect(() => faultsFor(orderTimeout, env('order-timeout:nope'))).toThrow(
      expect.objectContaining({ hint: 'order-timeout declares: no-sweeper, gate-off' }),
    );
    expect(() => faultsFor(lab('compensate'), env('compensate:x'))).toThrow(UsageError);
  });
});

describe('refuseUnknownLabs', () => {
  it('refuses an entry for a lab that does not exist', () => {
    expect(() => refuseUnknownLabs(['retry', 'hold'], env('retry:a,hold:b'))).not.toThrow();
    expect(() => refuseUnknownLabs(['retry'], env('retyr:skip-delay'))).toThrow(
      'MQLAB_FAULT names the lab(s) retyr, which do not exist',
    );
  });
});
