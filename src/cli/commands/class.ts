/**
 * `mqlab class …`: the teacher's commands for a class on one set — up, add, lines, reset, down and
 * the board. Each prints one line of what it did on stderr; up, add and lines print the students'
 * lines on stdout (or one JSON document with --json).
 */
import fs from 'node:fs';
import type { Config } from '../../core/config.js';
import { UsageError } from '../../core/errors.js';
import { integer } from '../../core/options.js';
import { holdHome } from '../../services/set-lock.js';
import { writeUnmasked } from '../../log/redact-streams.js';
import { classDown, classReset, classUp } from '../../class/provision.js';
import { studentCard, tunnelCommand } from '../../class/lines.js';
import {
  DEFAULT_LIMITS,
  listNames,
  numberedNames,
  readRoster,
  studentOf,
  type ClassLimits,
  type Roster,
} from '../../class/roster.js';

const log = (line: string) => process.stderr.write(`mqlab class: ${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** a class command holds the set shared, as a lab does: it waits for an outage of the teacher's own runs */
async function holding<T>(config: Config, what: string, run: () => Promise<T>): Promise<T> {
  const lock = await holdHome(config.home, { mode: 'shared', what, wait: true, say: log });
  try {
    return await run();
  } finally {
    lock?.release();
  }
}

export interface ClassFlags {
  json?: boolean;
  maxQueues?: string;
  maxConnections?: string;
}

function limitsOf(flags: ClassFlags): ClassLimits {
  return {
    queues:
      flags.maxQueues === undefined ? DEFAULT_LIMITS.queues : integer(1, 100_000)(flags.maxQueues, '--max-queues'),
    connections:
      flags.maxConnections === undefined
        ? DEFAULT_LIMITS.connections
        : integer(1, 10_000)(flags.maxConnections, '--max-connections'),
  };
}

/**
 * stdout a file that others may read (`> lines.txt` under umask 022, in a folder the students read):
 * made the teacher's only, before a password is written to it, and said
 */
function keepStdoutPrivate(): void {
  try {
    const st = fs.fstatSync(1);
    if (!st.isFile() || (st.mode & 0o077) === 0) return;
    fs.fchmodSync(1, st.mode & 0o700);
    log(
      `the file the lines go to was readable by others (mode ${(st.mode & 0o777).toString(8)}): it is yours only now (600), for it holds the students' passwords`,
    );
  } catch {
    // not ours to change (another's file, a special file): the guide's `umask 077` is the teacher's own guard
  }
}

/** the students' lines (stdout, with their passwords: they are to be handed out), or the class as one JSON document */
function printClass(config: Config, roster: Roster, only: readonly string[] | null, json: boolean): void {
  const students = only ? only.map((n) => studentOf(roster, n)) : roster.students;
  const cards = students.map((s) => studentCard(s, config.ports));
  keepStdoutPrivate();
  if (json) {
    const doc = {
      ports: { amqp: config.ports.amqp, postgres: config.ports.postgres, management: config.ports.management },
      limits: roster.limits,
      tunnel: tunnelCommand(config.ports),
      students: cards,
    };
    writeUnmasked(process.stdout, JSON.stringify(doc, null, 2) + '\n');
  } else writeUnmasked(process.stdout, cards.map((c) => c.line + '\n').join(''));
}

export async function classUpCommand(config: Config, students: string, flags: ClassFlags): Promise<number> {
  const n = integer(1, 200)(students, '--students');
  const made = await holding(config, 'mqlab class up', () => classUp(config, numberedNames(n), limitsOf(flags)));
  report(config, made.roster, made.added.length, made.ms);
  printClass(config, made.roster, null, Boolean(flags.json));
  return 0;
}

export async function classAddCommand(config: Config, names: string[], flags: ClassFlags): Promise<number> {
  const made = await holding(config, 'mqlab class add', () => classUp(config, names, limitsOf(flags)));
  report(config, made.roster, made.added.length, made.ms);
  printClass(config, made.roster, names, Boolean(flags.json));
  return 0;
}

function report(config: Config, roster: Roster, added: number, ms: number): void {
  const names = roster.students.map((s) => s.name);
  log(
    `${names.length} student(s) (${listNames(names)}), ${added} new, ready in ${seconds(ms)}: each has a RabbitMQ user and vhost (at most ${roster.limits.queues} queues, ${roster.limits.connections} connections), a PostgreSQL role and schema`,
  );
  log('hand each student their line (`mqlab class lines NAME` prints one again); `mqlab class board` shows their runs');
  log(`a student on a laptop opens a tunnel first: ${tunnelCommand(config.ports)}`);
}

export function classLinesCommand(config: Config, names: string[], flags: ClassFlags): number {
  const roster = readRoster(config.home);
  if (!roster?.students.length)
    throw new UsageError(`no class on the set of ${config.home}`, 'make one: mqlab class up --students N');
  printClass(config, roster, names.length ? names : null, Boolean(flags.json));
  return 0;
}

export async function classResetCommand(config: Config, name: string, runs: boolean): Promise<number> {
  const { ms } = await holding(config, 'mqlab class reset', () => classReset(config, name, runs));
  log(
    `${name}: vhost ${name} emptied (queues, exchanges, bindings, policies, connections) and schema ${name} emptied (tables, rows)${runs ? ', board rows deleted' : '; board rows kept (--runs deletes them)'} in ${seconds(ms)}; nobody else's touched`,
  );
  return 0;
}

export async function classDownCommand(config: Config): Promise<number> {
  const removed = await holding(config, 'mqlab class down', () => classDown(config));
  const names = [...new Set([...removed.broker, ...removed.postgres])].sort((a, b) =>
    a.localeCompare(b, 'en', { numeric: true }),
  );
  log(
    names.length
      ? `removed ${names.length} student(s) (${listNames(names)}): their RabbitMQ users and vhosts, PostgreSQL roles and schemas, and the board, in ${seconds(removed.ms)}`
      : `no class here: nothing to remove (${seconds(removed.ms)})`,
  );
  return 0;
}

/** `class board`: serve the board until Ctrl-C (`signal`) */
export async function classBoardCommand(
  config: Config,
  flags: { port?: string; viewers?: boolean },
  signal: AbortSignal,
): Promise<number> {
  const roster = readRoster(config.home);
  if (!roster?.students.length)
    throw new UsageError(`no class on the set of ${config.home}`, 'make one: mqlab class up --students N');
  const { serveBoard, DEFAULT_BOARD_PORT } = await import('../../class/board.js');
  const port = flags.port === undefined ? DEFAULT_BOARD_PORT : integer(0, 65535)(flags.port, '--port');
  const board = await serveBoard(config, {
    port,
    viewers: Boolean(flags.viewers),
    students: roster.students.map((s) => s.name),
    onTrouble: (line) => log(line),
  });
  // the address carries the board's token: written as it is (redact-streams masks token= otherwise)
  writeUnmasked(
    process.stderr,
    `mqlab class: board of ${roster.students.length} student(s) at ${board.url} (127.0.0.1 only; the token in it lets a page in: keep it off the projector); Ctrl-C ends it\n`,
  );
  if (flags.viewers) log(`view-only page to project: ${board.viewUrl}`);
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await board.close();
  return 0;
}
