import { describe, expect, it } from 'vitest';
import { allowedWallMs, argProblems, median, ratio, runFloorMs, scheduleFloorMs } from './bench-math.js';
import { meta as brokerRestart } from '../labs/broker-restart/meta.js';

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
  it("adds what the broker itself took in a run to a lab's fixed waits", () => {
    // broker-restart: no wait of its own; the node's stop and boot, as its --json facts say
    expect(runFloorMs(brokerRestart, { stopMs: 202, startMs: 7984 })).toBe(8186);
    expect(runFloorMs(brokerRestart, { stopMs: null, startMs: null })).toBe(0);
    expect(runFloorMs(brokerRestart, undefined)).toBe(0);
    expect(runFloorMs({ floorMs: 3000 }, { stopMs: 202, startMs: 7984 })).toBe(3000);
  });
  it('allows 1.5 × the floor and a start per process; a lab without waits half a start more per start', () => {
    expect(allowedWallMs(1000, 1, 200)).toBe(1700);
    expect(allowedWallMs(1000, 3, 200)).toBe(2100);
    expect(allowedWallMs(0, 1, 200)).toBe(300);
    expect(allowedWallMs(0, 3, 200)).toBe(900);
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
