import { describe, expect, it } from 'vitest';
import { argProblems, median, ratio, scheduleFloorMs } from './bench-math.js';

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
  it('packs the labs J at a time by their floors, the disruptive ones alone', () => {
    const labs = [
      { floorMs: 3000 },
      { floorMs: 1000 },
      { floorMs: 1000 },
      { floorMs: 1000 },
      { floorMs: 5000, disruptive: true },
    ];
    expect(scheduleFloorMs(labs, 1)).toBe(11_000);
    // lanes: 3000 | 1000 + 1000 | 1000, then 5000 alone
    expect(scheduleFloorMs(labs, 3)).toBe(8000);
    expect(scheduleFloorMs(labs, 4)).toBe(8000);
    expect(scheduleFloorMs([], 4)).toBe(0);
  });
  it('names an unknown argument and a flag without its value', () => {
    const valued = ['--runs', '--labs'];
    expect(argProblems(['--runs', '3', '--all'], valued, ['--all'])).toEqual([]);
    expect(argProblems(['--help'], valued, ['--all'])).toEqual(["unknown argument '--help'"]);
    expect(argProblems(['--labs', '--runs', '2'], valued, [])).toEqual(['--labs needs a value']);
    expect(argProblems(['--runs'], valued, [])).toEqual(['--runs needs a value']);
  });
});
