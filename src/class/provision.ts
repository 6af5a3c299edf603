/**
 * `mqlab class up|add|down|reset`: the class's accounts and objects made and removed through the
 * set's administrative path (src/services/admin.ts): the broker's in one definitions import (and
 * one `eval` to remove them), PostgreSQL's in one transaction of the superuser. Only for a set of
 * mqlab's own services, by whoever ran `mqlab up` there (the teacher).
 */
import type { Config } from '../core/config.js';
import { ACCOUNTS } from '../core/defaults.js';
import { EnvError } from '../core/errors.js';
import { nodeCli, passwordHash, postgresAdmin, type CliResult } from '../services/admin.js';
import { classDefinitions, deleteExpression, removedNames } from './definitions.js';
import { boardSql, classRoles, dropStudents, resetStudentRows, studentSql } from './database.js';
import {
  readRoster,
  removeRoster,
  studentOf,
  withStudents,
  writeRoster,
  type ClassLimits,
  type Roster,
  type Student,
} from './roster.js';

type SetConfig = Pick<Config, 'home' | 'ports'>;

const lastLine = (r: CliResult) => (r.stderr || r.stdout).trim().split('\n').pop()?.slice(0, 300) ?? '';

async function ctl(config: SetConfig, what: string, args: string[], input?: string): Promise<string> {
  const r = await nodeCli(config, 'rabbitmqctl', args, input === undefined ? {} : { input });
  if (r.exitCode !== 0)
    throw new EnvError(`${what}: rabbitmqctl ${args[0]} failed (exit ${r.exitCode}): ${lastLine(r)}`);
  return r.stdout;
}

/**
 * The broker's accounts, vhosts, permissions and limits of `students`: one import. Without `users`,
 * their vhosts, permissions and limits only: the accounts stay as they are (a reset, which would
 * otherwise store each password again under a new salt)
 */
const importStudents = (config: SetConfig, students: readonly Student[], limits: ClassLimits, users = true) => {
  const defs = classDefinitions(students, limits, (pw) => passwordHash(pw));
  return ctl(
    config,
    'making the students on RabbitMQ',
    ['import_definitions'],
    JSON.stringify(users ? defs : { ...defs, users: [] }),
  );
};

/** PostgreSQL's roles and schemas of `students` and the board's table: one transaction */
async function makeStudentRoles(config: SetConfig, students: readonly Student[], limits: ClassLimits) {
  const sql = postgresAdmin(config, ACCOUNTS.database);
  try {
    await sql.begin(async (tx) => {
      await tx.unsafe(boardSql(ACCOUNTS.database));
      for (const s of students) await tx.unsafe(studentSql(s, limits, ACCOUNTS.database));
    });
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/**
 * The broker's work and the database's at once, both to their end before either's failure is
 * thrown: a command that failed on one side must not leave the other still changing things
 */
async function both<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [x, y] = await Promise.allSettled([a, b]);
  if (x.status === 'rejected') throw x.reason;
  if (y.status === 'rejected') throw y.reason;
  return [x.value, y.value];
}

interface ClassMade {
  roster: Roster;
  added: Student[];
  ms: number;
}

/**
 * Make sure `names` are students of the class (adding to it; those already in it keep their password):
 * every student of the roster is imported again, so a class half-made by an interrupted `up` is whole.
 */
export async function classUp(config: SetConfig, names: readonly string[], limits: ClassLimits): Promise<ClassMade> {
  const started = performance.now();
  const { roster, added } = withStudents(readRoster(config.home), names, limits);
  // first: whoever may exist on the services is in the roster, for `class down` to remove
  writeRoster(config.home, roster);
  await both(
    importStudents(config, roster.students, roster.limits),
    makeStudentRoles(config, roster.students, roster.limits),
  );
  return { roster, added, ms: performance.now() - started };
}

interface ClassRemoved {
  broker: string[];
  postgres: string[];
  ms: number;
}

/** remove every student (of the roster, and any account tagged as a class's), the board and class.json */
export async function classDown(config: SetConfig): Promise<ClassRemoved> {
  const started = performance.now();
  const names = readRoster(config.home)?.students.map((s) => s.name) ?? [];
  const removing = async () => {
    const sql = postgresAdmin(config, ACCOUNTS.database);
    try {
      const roles = [...new Set([...names, ...(await classRoles(sql))])];
      const existing = await sql<{ rolname: string }[]>`SELECT rolname FROM pg_roles WHERE rolname = ANY(${roles})`;
      const gone = existing.map((r) => r.rolname).sort();
      await dropStudents(sql, gone, true);
      return gone;
    } finally {
      await sql.end({ timeout: 1 });
    }
  };
  const [printed, postgres] = await both(
    ctl(config, 'removing the students from RabbitMQ', ['eval', deleteExpression(names, true)]),
    removing(),
  );
  removeRoster(config.home);
  return { broker: removedNames(printed).sort(), postgres, ms: performance.now() - started };
}

/**
 * Empty one student's world: their vhost deleted and made again (its queues, exchanges, bindings,
 * policies, and the connections to it, go; their account is left as it was), their schema dropped and made again (their tables and
 * rows), with `runs` their board rows too. Nothing of another student's is touched.
 */
export async function classReset(config: SetConfig, name: string, runs: boolean): Promise<{ ms: number }> {
  const started = performance.now();
  const roster = readRoster(config.home);
  const student = studentOf(roster, name);
  const limits = (roster as Roster).limits; // studentOf found the student in it
  const broker = async () => {
    const r = await nodeCli(config, 'rabbitmqctl', ['delete_vhost', student.name]);
    if (r.exitCode !== 0 && !/no_such_vhost|does not exist/.test(r.stderr + r.stdout))
      throw new EnvError(`resetting ${name}: rabbitmqctl delete_vhost failed (exit ${r.exitCode}): ${lastLine(r)}`);
    await importStudents(config, [student], limits, false);
  };
  const rows = async () => {
    const sql = postgresAdmin(config, ACCOUNTS.database);
    try {
      await resetStudentRows(sql, student.name, runs);
    } finally {
      await sql.end({ timeout: 1 });
    }
  };
  await both(broker(), rows());
  return { ms: performance.now() - started };
}
