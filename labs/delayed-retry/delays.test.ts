import { describe, expect, it } from 'vitest';
import { expectedDelays, judgeGaps, ladderTiers } from './delays.js';

const spec = { minMs: 200, maxMs: 600, returns: 4 };

describe('native delayed retry delays', () => {
  it('reject grows min × delivery-count up to max; nack stays at min', () => {
    expect(expectedDelays(spec, 'reject')).toEqual([200, 400, 600, 600]);
    expect(expectedDelays(spec, 'nack')).toEqual([200, 200, 200, 200]);
  });
  it('the TTL ladder needs one delay queue per distinct delay', () => {
    expect(ladderTiers(spec)).toEqual([200, 400, 600]);
  });
  it('judges gaps: early ones counted, lateness and mean error in ms', () => {
    expect(judgeGaps([205, 410, 600, 640], [200, 400, 600, 600])).toEqual({ early: 0, maxLateMs: 40, meanErrorMs: 14 });
    expect(judgeGaps([150, 400], [200, 400]).early).toBe(1);
    expect(judgeGaps([200], [200, 400]).early).toBe(1); // a missing delivery is not on time
  });
});
