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

  it('any other stdout error (a full device) is one line on stderr and exit 2', () => {
    const stdout = new EventEmitter();
    const exit = vi.fn();
    const said: string[] = [];
    endQuietlyWhenClosed(stdout, exit, (line) => said.push(line));
    stdout.emit('error', failure('ENOSPC'));
    expect(exit).toHaveBeenCalledWith(2);
    expect(said.join('')).toMatch(/^mqlab: cannot write to standard output \(ENOSPC\)\n/);
  });
});
