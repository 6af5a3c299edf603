/**
 * `mqlab list | head -1`: the reader closes the pipe early, and the next write to stdout fails with
 * EPIPE (Node ignores SIGPIPE, so without a listener that is an unhandled 'error' and a stack trace).
 * Nothing more can be printed there: the program ends quietly, with the exit code of the run so far.
 * Any other failure to write stdout (`--json > /dev/full`: ENOSPC) is an environment error: one line
 * on stderr, exit 2.
 */
import type { EventEmitter } from 'node:events';

export function endQuietlyWhenClosed(
  stdout: EventEmitter,
  exit: (code?: number) => void,
  say: (line: string) => void = (line) => process.stderr.write(line),
): void {
  stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') return exit();
    say(
      `mqlab: cannot write to standard output (${err.code ?? err.message})\n  → redirect it to a file or device with room\n`,
    );
    exit(2);
  });
}
