import { describe, expect, it } from 'vitest';
import { readCount } from './counts.js';

describe('delivery counts as the broker sent them', () => {
  it('absent stays absent, never 0; numbers and event strings are read', () => {
    expect(readCount(undefined)).toBe('absent');
    expect(readCount('absent')).toBe('absent');
    expect(readCount(0)).toBe(0);
    expect(readCount('0')).toBe(0);
    expect(readCount('3')).toBe(3);
    expect(readCount('x')).toBe('absent');
  });
});
