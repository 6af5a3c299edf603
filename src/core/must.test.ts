import { describe, expect, it } from 'vitest';
import { must } from './must.js';

describe('must', () => {
  it('returns a present value, falsy ones included', () => {
    expect(must(0, 'a count')).toBe(0);
    expect(must('', 'a name')).toBe('');
    expect(must(null, 'a nullable column')).toBe(null);
  });
  it('throws an Error naming what was missing', () => {
    expect(() => must([1][1], 'the second sample')).toThrow('missing the second sample');
  });
});
