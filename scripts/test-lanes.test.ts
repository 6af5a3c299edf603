import { describe, expect, it } from 'vitest';
import { disruptiveOffset } from './test-lanes.js';

describe('npm test: the second set for the disruptive files', () => {
  it('sits 5000 ports above the first, or below when that would pass 30000', () => {
    expect(disruptiveOffset(0)).toBe(5000);
    expect(disruptiveOffset(700)).toBe(5700);
    expect(disruptiveOffset(25000)).toBe(30000);
    expect(disruptiveOffset(26000)).toBe(21000);
  });
});
