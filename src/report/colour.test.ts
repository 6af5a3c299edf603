import { describe, expect, it } from 'vitest';
import { useColour } from './colour.js';

const tty = { isTTY: true };
const pipe = { isTTY: false };

describe('colour decision', () => {
  it('colours a TTY, not a pipe, not a dumb terminal', () => {
    expect(useColour(tty, {})).toBe(true);
    expect(useColour(pipe, {})).toBe(false);
    expect(useColour(tty, { TERM: 'dumb' })).toBe(false);
  });

  it('NO_COLOR disables colour only when non-empty (no-color.org)', () => {
    expect(useColour(tty, { NO_COLOR: '1' })).toBe(false);
    expect(useColour(tty, { NO_COLOR: '' })).toBe(true);
  });

  it('FORCE_COLOR turns colour on even in a pipe; 0 or false turns it off', () => {
    expect(useColour(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(useColour(pipe, { FORCE_COLOR: '' })).toBe(true);
    expect(useColour(tty, { FORCE_COLOR: '0' })).toBe(false);
    expect(useColour(tty, { FORCE_COLOR: 'false' })).toBe(false);
    expect(useColour(pipe, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true);
  });

  it('--color / --no-color win over everything', () => {
    expect(useColour(pipe, { NO_COLOR: '1' }, true)).toBe(true);
    expect(useColour(tty, { FORCE_COLOR: '1' }, false)).toBe(false);
  });
});
