/**
 * The class of one set: its students, each with one random password for RabbitMQ, its management
 * API and PostgreSQL, and the limits they were made with. Kept in the teacher's data folder as
 * `class.json`, mode 0600: the teacher reprints the lines from it, `class down` knows whom to remove.
 * A student's name is everything of theirs: RabbitMQ user and vhost, PostgreSQL role and schema,
 * and the namespace their runs use.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { UsageError } from '../core/errors.js';

export interface Student {
  name: string;
  password: string;
}

/** what each student may hold at most (RabbitMQ vhost and user limits, PostgreSQL's role limit) */
export interface ClassLimits {
  /** queues in the student's vhost */
  queues: number;
  /** connections: to the vhost, of the user, and of the PostgreSQL role */
  connections: number;
}

/**
 * `mqlab all` leaves 78 queues in a namespace (4.3.6, 20 labs run): twice that with `--jobs`, and
 * room for the exercises. A run of one lab opens 1–5 connections; `all --jobs 4` up to ~20.
 */
export const DEFAULT_LIMITS: ClassLimits = { queues: 250, connections: 40 };

export interface Roster {
  students: Student[];
  limits: ClassLimits;
}

const ROSTER_FILE = 'class.json';
const rosterPath = (home: string) => path.join(home, ROSTER_FILE);

/**
 * Names a student may not have: the lab's own accounts, vhost, schema and database, PostgreSQL's
 * reserved prefix, and the class's own objects.
 */
const RESERVED = /^(app|lab|public|postgres|guest|mqlab.*|pg_.*|information_schema|template\d)$/;
const NAME = /^[a-z][a-z0-9_]{0,23}$/;

/** a student's name must be a namespace (1-24: a letter, then letters, digits, _) and not a reserved one */
export function checkStudentName(name: string): void {
  if (!NAME.test(name))
    throw new UsageError(
      `invalid student name '${name}'`,
      'use 1-24 characters: a lowercase letter, then lowercase letters, digits or _ (it is their namespace)',
    );
  if (RESERVED.test(name))
    throw new UsageError(`'${name}' is a name mqlab itself uses`, 'choose another name, e.g. s31 or alice');
}

/** s1 … sN */
export const numberedNames = (n: number): string[] => Array.from({ length: n }, (_, i) => `s${i + 1}`);

const newPassword = () => crypto.randomBytes(18).toString('base64url');

/** the class of the data folder, or null when it has none */
export function readRoster(home: string): Roster | null {
  let raw: string;
  try {
    raw = fs.readFileSync(rosterPath(home), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const r = JSON.parse(raw) as Partial<Roster>;
  return { students: r.students ?? [], limits: { ...DEFAULT_LIMITS, ...r.limits } };
}

/** written whole (a temporary file renamed), 0600: the passwords are the teacher's to hand out */
export function writeRoster(home: string, roster: Roster): void {
  const file = rosterPath(home);
  const tmp = `${file}.tmp`;
  fs.rmSync(tmp, { force: true });
  fs.writeFileSync(tmp, JSON.stringify(roster, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
  fs.renameSync(tmp, file);
}

export const removeRoster = (home: string) => fs.rmSync(rosterPath(home), { force: true });

/** the roster with `names` added (those already in it keep their password); the added ones apart */
export function withStudents(
  roster: Roster | null,
  names: readonly string[],
  limits: ClassLimits,
): {
  roster: Roster;
  added: Student[];
} {
  const students = [...(roster?.students ?? [])];
  const added: Student[] = [];
  for (const name of names) {
    checkStudentName(name);
    if (students.some((s) => s.name === name)) continue;
    const s = { name, password: newPassword() };
    students.push(s);
    added.push(s);
  }
  return { roster: { students, limits: roster?.limits ?? limits }, added };
}

/** the student named `name`, or a usage error listing who there is */
export function studentOf(roster: Roster | null, name: string): Student {
  const s = roster?.students.find((x) => x.name === name);
  if (s) return s;
  const who = roster?.students.map((x) => x.name) ?? [];
  throw new UsageError(
    `no student '${name}' in this set's class`,
    who.length ? `the class has ${listNames(who)}` : 'make a class first: mqlab class up --students N',
  );
}

/** "s1, s2, … s30 (30)" */
export function listNames(names: readonly string[]): string {
  if (names.length <= 6) return names.join(', ');
  return `${names.slice(0, 3).join(', ')}, … ${names[names.length - 1]} (${names.length})`;
}
