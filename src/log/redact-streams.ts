/** stdout and stderr of mqlab pass every string through redactSecrets before it is written. */
import { redactSecrets } from '../core/secrets.js';

export function redactStreams(...streams: NodeJS.WriteStream[]): void {
  for (const stream of streams) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
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
