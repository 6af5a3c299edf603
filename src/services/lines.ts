/**
 * The broker lines `mqlab up --line` starts: RabbitMQ + PostgreSQL from Debian's packages, in a private
 * root built from a Debian suite (chroot backend) or this machine's own (system backend). A data folder
 * holds one line's data (RabbitMQ's and PostgreSQL's files do not go down a version): it records it, and
 * a second line runs beside it in a data folder and on ports of its own (MQLAB_HOME, MQLAB_PORT_OFFSET).
 */
import { UsageError } from '../core/errors.js';

export interface RootLine {
  line: '4.3' | '4.0';
  backend: 'chroot';
  /** the Debian suite the private root is built from */
  suite: string;
  release: string;
  packages: readonly string[];
  /** what it runs, as a person says it */
  runs: string;
}
interface SystemLine {
  line: '3.10';
  backend: 'system';
  runs: string;
}
type LineSpec = RootLine | SystemLine;
export type Line = LineSpec['line'];

const LINES: readonly LineSpec[] = [
  {
    line: '4.3',
    backend: 'chroot',
    suite: 'sid',
    release: 'Debian unstable',
    packages: ['rabbitmq-server', 'postgresql-18'],
    runs: 'RabbitMQ 4.3 + PostgreSQL 18',
  },
  {
    line: '4.0',
    backend: 'chroot',
    suite: 'trixie',
    release: 'Debian 13 (trixie)',
    packages: ['rabbitmq-server', 'postgresql-17'],
    runs: 'RabbitMQ 4.0 + PostgreSQL 17',
  },
  { line: '3.10', backend: 'system', runs: "this machine's packages (RabbitMQ 3.10 + PostgreSQL 15 on Debian 12)" },
];

/** the line `mqlab up` starts when neither --line, MQLAB_LINE nor the data folder says */
export const DEFAULT_LINE: Line = '4.3';
export const LINE_NAMES: readonly string[] = LINES.map((l) => l.line);

export const lineSpec = (line: Line): LineSpec => LINES.find((l) => l.line === line)!;

/** the private root's line of a suite ('sid' before lines were recorded) */
export const rootLine = (line: Line): RootLine => {
  const spec = lineSpec(line);
  if (spec.backend !== 'chroot') throw new Error(`line ${line} has no private root`);
  return spec;
};

export function parseLine(raw: string): Line {
  const found = LINES.find((l) => l.line === raw.trim());
  if (!found)
    throw new UsageError(
      `unknown line '${raw}'`,
      `use --line ${LINE_NAMES.join(', ')} (${LINES.map((l) => `${l.line}: ${l.runs}`).join('; ')})`,
    );
  return found.line;
}
