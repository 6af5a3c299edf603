import { describe, expect, it } from 'vitest';
import { text } from './text.js';

describe('text', () => {
  it('writes strings, numbers, booleans and arrays as String() does', () => {
    expect([text('a'), text(3), text(false), text(10n), text([1, 'b'])]).toEqual(['a', '3', 'false', '10', '1,b']);
    expect(text(Buffer.from('héllo'))).toBe('héllo');
  });
  it('writes null and undefined as the fallback', () => {
    expect([text(undefined), text(null, 'none'), text(undefined, 'classic')]).toEqual(['', 'none', 'classic']);
  });
  it('writes a plain object as JSON, not "[object Object]"', () => {
    expect(text({ a: 1 })).toBe('{"a":1}');
    expect(text(Object.create(null) as object)).toBe('{}');
  });
});
