/**
 * PostgreSQL's side of a class, run by the superuser in database `lab`: per student a login role
 * (limited connections) that owns a schema of its own, its search_path set to it (the labs' tables
 * are unqualified, so a student's land there); and the board's table `mqlab_class.runs`, where each
 * run of a student writes its own rows (row-level security: a student reads and writes only rows
 * with their own name, and deletes none). Another student's schema is closed to them: no USAGE.
 */
import type { Sql } from 'postgres';
import type { ClassLimits, Student } from './roster.js';

export const BOARD_SCHEMA = 'mqlab_class';
/** the group every student's role is a member of: the board's grants go to it, not to each student */
const STUDENTS_ROLE = 'mqlab_class_students';

/** a quoted SQL literal of a password the roster made (base64url), refused otherwise */
const literal = (s: string) => {
  if (!/^[A-Za-z0-9_-]+$/.test(s)) throw new Error('not a password of the roster');
  return `'${s}'`;
};
/** a student's name is a plain identifier (the roster checked it) */
const ident = (s: string) => {
  if (!/^[a-z][a-z0-9_]*$/.test(s)) throw new Error(`not a student name: ${s}`);
  return s;
};

/** the board's schema, table and grants (idempotent) */
export const boardSql = (database: string) => `
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${STUDENTS_ROLE}') THEN
    CREATE ROLE ${STUDENTS_ROLE} NOLOGIN;
  END IF;
END $$;
COMMENT ON ROLE ${STUDENTS_ROLE} IS 'mqlab class: every student';
CREATE SCHEMA IF NOT EXISTS ${BOARD_SCHEMA};
CREATE TABLE IF NOT EXISTS ${BOARD_SCHEMA}.runs (
  id bigserial PRIMARY KEY,
  student text NOT NULL DEFAULT current_user,
  lab text NOT NULL,
  namespace text NOT NULL,
  status text NOT NULL,
  predict text,
  prediction jsonb,
  fails jsonb NOT NULL DEFAULT '[]',
  checks jsonb NOT NULL DEFAULT '[]',
  skipped text,
  error text,
  started_at timestamptz NOT NULL DEFAULT now(),
  ended_at timestamptz,
  ms integer,
  vhost text,
  host text,
  pid integer,
  backend integer NOT NULL DEFAULT pg_backend_pid());
ALTER TABLE ${BOARD_SCHEMA}.runs ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS own_rows ON ${BOARD_SCHEMA}.runs;
CREATE POLICY own_rows ON ${BOARD_SCHEMA}.runs TO ${STUDENTS_ROLE}
  USING (student = current_user) WITH CHECK (student = current_user);
GRANT USAGE ON SCHEMA ${BOARD_SCHEMA} TO ${STUDENTS_ROLE};
GRANT SELECT, INSERT, UPDATE ON ${BOARD_SCHEMA}.runs TO ${STUDENTS_ROLE};
GRANT USAGE ON SEQUENCE ${BOARD_SCHEMA}.runs_id_seq TO ${STUDENTS_ROLE};
GRANT CONNECT ON DATABASE ${database} TO ${STUDENTS_ROLE};`;

/** one student's role, schema and search path (idempotent; the password is the roster's) */
export const studentSql = (s: Student, limits: ClassLimits, database: string) => {
  const name = ident(s.name);
  return `
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${name}') THEN CREATE ROLE ${name} LOGIN; END IF;
END $$;
ALTER ROLE ${name} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE INHERIT
  CONNECTION LIMIT ${limits.connections} PASSWORD ${literal(s.password)};
COMMENT ON ROLE ${name} IS 'mqlab class: student ${name}';
GRANT ${STUDENTS_ROLE} TO ${name};
CREATE SCHEMA IF NOT EXISTS ${name} AUTHORIZATION ${name};
ALTER ROLE ${name} IN DATABASE ${database} SET search_path = ${name};`;
};

/** end the sessions of these roles (a lab holding a lock on a table would keep a DROP waiting) */
async function endSessions(sql: Sql, names: readonly string[]): Promise<void> {
  if (names.length)
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = ANY(${names as string[]})`;
}

/** a student's schema emptied: dropped and made again, owned by them; their board rows too when `runs` */
export async function resetStudentRows(sql: Sql, name: string, runs: boolean): Promise<void> {
  const n = ident(name);
  await endSessions(sql, [n]);
  await sql.begin(async (tx) => {
    await tx.unsafe(`DROP SCHEMA IF EXISTS ${n} CASCADE; CREATE SCHEMA ${n} AUTHORIZATION ${n};`);
    if (runs) await tx`DELETE FROM ${tx(BOARD_SCHEMA)}.runs WHERE student = ${n}`;
  });
}

/**
 * The class's roles: the direct members of the students' group, and roles commented as class
 * students (a role an interrupted `class up` made before it joined the group). Not pg_has_role: a
 * superuser "has" every role.
 */
export async function classRoles(sql: Sql): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`
    SELECT r.rolname AS name FROM pg_roles r
    WHERE NOT r.rolsuper AND (
      EXISTS (SELECT FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
              WHERE m.member = r.oid AND g.rolname = ${STUDENTS_ROLE})
      OR shobj_description(r.oid, 'pg_authid') LIKE 'mqlab class: student %')`;
  return rows.map((r) => r.name).sort();
}

/**
 * Remove the students `names` (their sessions, schema, objects, grants and role) and, with `all`,
 * the board's schema and the students' group: what `class down` leaves is what `up` made.
 */
export async function dropStudents(sql: Sql, names: readonly string[], all: boolean): Promise<void> {
  await endSessions(sql, names);
  for (const name of names.map(ident))
    await sql.unsafe(`DROP SCHEMA IF EXISTS ${name} CASCADE; DROP OWNED BY ${name} CASCADE; DROP ROLE ${name};`);
  if (all)
    await sql.unsafe(`
DROP SCHEMA IF EXISTS ${BOARD_SCHEMA} CASCADE;
DO $$ BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = '${STUDENTS_ROLE}') THEN
    EXECUTE 'REVOKE ALL ON DATABASE ' || current_database() || ' FROM ${STUDENTS_ROLE}';
    DROP ROLE ${STUDENTS_ROLE};
  END IF;
END $$;`);
}
