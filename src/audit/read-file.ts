/**
 * A definitions file read for the audit, bounded: only a regular file (a device such as /dev/zero,
 * a FIFO or a folder is refused before it is read), at most MAX_FILE_BYTES, UTF-8 with an optional
 * byte-order mark (some Windows tools write one; RabbitMQ's own exports have none). A parse error
 * says where (line and column), never what the file holds: the audit may run with more rights than
 * the author of its input (security review D18).
 */
import fs from 'node:fs';
import { UsageError } from '../core/errors.js';
import { jsonErrorPlace } from './json-where.js';

/** 256 MiB: a definitions export of 100,000 queues is about 21 MB */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;

export const NOT_EXPORT_HINT =
  'give a file written by `rabbitmqctl export_definitions FILE`, GET /api/definitions or the management UI’s Export definitions';

export function readJsonFile(file: string): unknown {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, NOT_EXPORT_HINT);
  }
  if (!stat.isFile())
    throw new UsageError(
      `${file} is not a regular file (${stat.isDirectory() ? 'a folder' : 'a device, FIFO or socket'})`,
      NOT_EXPORT_HINT,
    );
  if (stat.size > MAX_FILE_BYTES)
    throw new UsageError(
      `${file} is ${(stat.size / 2 ** 20).toFixed(0)} MiB, more than the ${MAX_FILE_BYTES / 2 ** 20} MiB an audit reads`,
      'audit one vhost at a time: GET /api/definitions/VHOST writes one vhost’s definitions',
    );
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, NOT_EXPORT_HINT);
  }
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(bom));
  } catch {
    throw new UsageError(`${file} is not UTF-8 text: not a definitions export`, NOT_EXPORT_HINT);
  }
  if (!text.trim()) throw new UsageError(`${file} is empty`, NOT_EXPORT_HINT);
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(
      `${file} is not valid JSON (${jsonErrorPlace(text)}): a truncated or damaged export?`,
      NOT_EXPORT_HINT,
    );
  }
}
