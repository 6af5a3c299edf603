/** stdout and stderr of mqlab pass every string through redactSecrets before it is written. */
import { redactSecrets } from '../core/secrets.js';

type Write = (chunk: unknown, ...rest: unknown[]) => boolean;
const unmasked = new WeakMap<NodeJS.WritableStream, Write>();

export function redactStreams(...streams: NodeJS.WriteStream[]): void {
  for (const stream of streams) {
    const write = stream.write.bind(stream) as Write;
    unmasked.set(stream, write);
    stream.write = (chunk: unknown, ...rest: unknown[]) =>
      write(
        typeof chunk === 'string'
          ? redactSecrets(chunk)
          : Buffer.isBuffer(chunk)
            ? redactSecrets(chunk.toString('utf8'))
            : chunk,
        ...rest,
      );
  }
}

/**
 * The lines meant to carry a secret, written as they are: the --live address with its token, which
 * the person at the terminal must be able to open (every URL's `token=` is masked otherwise), and
 * the students' lines of `mqlab class` (each with the password the teacher hands out).
 */
export function writeUnmasked(stream: NodeJS.WriteStream, line: string): void {
  (unmasked.get(stream) ?? (stream.write.bind(stream) as Write))(line);
}
