import { describe, expect, it } from 'vitest';
import { median, ratio } from './bench-math.js';

describe('bench math', () => {
  it('takes the median of odd and even samples, unsorted', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
  it('relates the median to the floor', () => {
    expect(ratio(1250, 1000)).toBe(1.25);
    expect(ratio(300, 0)).toBeNull();
  });
});
