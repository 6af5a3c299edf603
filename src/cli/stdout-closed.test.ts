import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { endQuietlyWhenClosed } from './stdout-closed.js';

const failure = (code: string) => Object.assign(new Error(`write ${code}`), { code });

describe('endQuietlyWhenClosed', () => {
  it('ends the program when the reader of stdout went away (EPIPE)', () => {
    const stdout = new EventEmitter();
    const exit = vi.fn();
    endQuietlyWhenClosed(stdout, exit);
    stdout.emit('error', failure('EPIPE'));
    expect(exit).toHaveBeenCalledOnce();
  });

  it('lets any other stdout error through', () => {
    const stdout = new EventEmitter();
    const exit = vi.fn();
    endQuietlyWhenClosed(stdout, exit);
    expect(() => stdout.emit('error', failure('ENOSPC'))).toThrow('write ENOSPC');
    expect(exit).not.toHaveBeenCalled();
  });
});
