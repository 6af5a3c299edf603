/**
 * `mqlab list | head -1`: the reader closes the pipe early, and the next write to stdout fails with
 * EPIPE (Node ignores SIGPIPE, so without a listener that is an unhandled 'error' and a stack trace).
 * Nothing more can be printed there: the program ends quietly, with the exit code of the run so far.
 */
import type { EventEmitter } from 'node:events';

export function endQuietlyWhenClosed(stdout: EventEmitter, exit: () => void): void {
  stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    exit();
  });
}
