import { describe, expect, it } from 'vitest';
import { absentCounts, failedDeliveryCounts } from './counts.js';

describe('the counts crash-loop expects', () => {
  it('a crash on every delivery: absent, 1, 2 for a limit of 2; a header never sent: absent each time', () => {
    expect(failedDeliveryCounts(2)).toEqual(['absent', 1, 2]);
    expect(absentCounts(2)).toEqual(['absent', 'absent', 'absent']);
  });
});
