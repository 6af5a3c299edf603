import { describe, expect, it } from 'vitest';
import { approvedAmount, removedAfterConfirm, repairPayload } from './repair.js';

describe('approvedAmount', () => {
  it('reads the amount the approval vouches for', () => {
    expect(approvedAmount('verified order amount=10')).toBe('10');
    expect(approvedAmount('amount=12.50 checked by finance')).toBe('12.50');
  });
  it('finds none when the approval names no valid amount', () => {
    expect(approvedAmount('verified order')).toBeNull();
    expect(approvedAmount('verified order amount=invalid')).toBeNull();
    expect(approvedAmount('verified order discount_amount=10')).toBeNull();
  });
});

describe('repairPayload', () => {
  it('replaces only the amount field with the approved amount', () => {
    expect(repairPayload('amount=invalid', 'verified order amount=10')).toBe('amount=10');
    expect(repairPayload('order=42&amount=invalid&currency=EUR', 'verified order amount=10')).toBe(
      'order=42&amount=10&currency=EUR',
    );
  });
  it('refuses to guess: no approved amount or no amount field means no repair', () => {
    expect(repairPayload('amount=invalid', 'verified order')).toBeNull();
    expect(repairPayload('order=42', 'verified order amount=10')).toBeNull();
  });
});

describe('removedAfterConfirm', () => {
  it('holds when the work queue held the confirmed copy before the ack and the source is empty after', () => {
    expect(removedAfterConfirm(1, 0)).toBe(true);
  });
  it('fails when the work queue was empty at the ack (the original was acked before its copy was safe)', () => {
    expect(removedAfterConfirm(0, 0)).toBe(false);
  });
  it('fails when the original was never acked or is still in the source queue', () => {
    expect(removedAfterConfirm(null, 0)).toBe(false);
    expect(removedAfterConfirm(1, 1)).toBe(false);
  });
});
