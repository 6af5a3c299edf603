/**
 * A class student's run on the teacher's board: each lab of the run is a row of
 * `mqlab_class.runs` (src/class/database.ts), written by the student's own account — "running" as the
 * lab starts, its verdict, failed checks, time and the prediction (--predict) as it ends. As a lab
 * starts, the run also takes an advisory lock of PostgreSQL on (vhost, namespace, lab), held by its
 * connection until the lab ends (or the process dies): a second run of the same lab in the same
 * namespace finds it taken and says so — the two would purge and reset each other's queues and rows.
 * Nothing here may fail the run: trouble with the board is one line, and recording stops.
 */
import os from 'node:os';
import postgres, { type Sql } from 'postgres';
import type { Config } from '../core/config.js';
import type { LabReport } from '../report/lab-report.js';
import { formatExpected, formatValue } from '../report/checks.js';
import { guessText, judgePrediction, type Guess } from '../report/prediction.js';
import { BOARD_SCHEMA } from './database.js';
import { LEFT_OUT } from '../engine/refusal.js';

export interface RunRecorder {
  labStarting(lab: string, namespace: string): Promise<void>;
  labEnded(report: LabReport, namespace: string): Promise<void>;
  close(): Promise<void>;
}

const RUNS = `${BOARD_SCHEMA}.runs`;
const clock = (d: Date) => d.toTimeString().slice(0, 8);

/** the recorder of a student's run, or null when the database has no board (a line says so) */
export async function startRecorder(
  config: Pick<Config, 'pgUrl' | 'vhost' | 'student'>,
  guesses: readonly Guess[] | null,
  say: (line: string) => void,
): Promise<RunRecorder | null> {
  const sql = postgres(config.pgUrl, {
    max: 1,
    onnotice: () => {},
    connect_timeout: 5,
    fetch_types: false,
    connection: { application_name: 'mqlab board' },
  });
  let on = true;
  const trouble = (err: unknown) => {
    if (on) say(`the board: ${(err as Error).message}; this run is not recorded further`);
    on = false;
  };
  try {
    const [row] = await sql<{ ok: boolean }[]>`SELECT to_regclass(${RUNS}) IS NOT NULL AS ok`;
    if (!row?.ok) {
      say(`MQLAB_STUDENT=${config.student}, but this database has no class board (${RUNS}): the run is not recorded`);
      await sql.end({ timeout: 1 });
      return null;
    }
  } catch (err) {
    // the run itself reports what is wrong with the database (or needs none)
    say(`the board: ${(err as Error).message}; the run is not recorded`);
    await sql.end({ timeout: 0 }).catch(() => {});
    return null;
  }
  const ids = new Map<string, number>();
  const key = (namespace: string, lab: string) => `${config.vhost}/${namespace}/${lab}`;
  const guarded =
    <A extends unknown[]>(f: (...a: A) => Promise<void>) =>
    async (...a: A) => {
      if (on) await f(...a).catch(trouble);
    };
  return {
    labStarting: guarded(async (lab: string, namespace: string) => {
      const [lock] = await sql<{ got: boolean }[]>`
        SELECT pg_try_advisory_lock(hashtext('mqlab-run'), hashtext(${key(namespace, lab)})) AS got`;
      if (!lock?.got) await sayOther(sql, lab, namespace, say);
      const [made] = await sql<{ id: string }[]>`
        INSERT INTO ${sql(BOARD_SCHEMA)}.runs (lab, namespace, vhost, status, predict, host, pid)
        VALUES (${lab}, ${namespace}, ${config.vhost}, 'running', ${guesses ? guesses.map(guessText).join(' ') : null},
                ${os.hostname()}, ${process.pid})
        RETURNING id`;
      ids.set(lab, Number(made?.id));
    }),
    labEnded: guarded(async (report: LabReport, namespace: string) => {
      if (report.skipped === LEFT_OUT) return; // the student left it out: nothing to show
      const fails = report.checks
        .filter((c) => !c.pass)
        .map((c) => ({ name: c.name, expected: formatExpected(c), actual: formatValue(c.actual) }));
      const checks = { passed: report.checks.filter((c) => c.pass).length, total: report.checks.length };
      const prediction = guesses ? judgePrediction(guesses, report) : null;
      const row = {
        status: report.status,
        fails: sql.json(fails),
        checks: sql.json(checks),
        prediction: prediction ? sql.json(JSON.parse(JSON.stringify(prediction)) as postgres.JSONValue) : null,
        skipped: report.skipped ?? null,
        error: report.error ?? null,
        ended_at: new Date(),
        ms: Math.round(report.timings.totalMs),
      };
      const id = ids.get(report.lab);
      if (id === undefined)
        // a lab that never started (SKIP): its row is its verdict
        await sql`INSERT INTO ${sql(BOARD_SCHEMA)}.runs ${sql({ ...row, lab: report.lab, namespace, vhost: config.vhost, host: os.hostname(), pid: process.pid })}`;
      else {
        await sql`UPDATE ${sql(BOARD_SCHEMA)}.runs SET ${sql(row)} WHERE id = ${id}`;
        await sql`SELECT pg_advisory_unlock(hashtext('mqlab-run'), hashtext(${key(namespace, report.lab)}))`;
      }
    }),
    close: () => sql.end({ timeout: 1 }).catch(() => {}),
  };
}

/** the line about the other run of `lab` in `namespace` (its row, when it is this student's) */
async function sayOther(sql: Sql, lab: string, namespace: string, say: (line: string) => void): Promise<void> {
  const [other] = await sql<{ started_at: Date; host: string | null; pid: number | null }[]>`
    SELECT started_at, host, pid FROM ${sql(BOARD_SCHEMA)}.runs
    WHERE lab = ${lab} AND namespace = ${namespace} AND status = 'running' ORDER BY id DESC LIMIT 1`;
  const which = other
    ? ` (started ${clock(other.started_at)}${other.host ? ` on ${other.host}` : ''}${other.pid ? `, pid ${other.pid}` : ''})`
    : '';
  say(
    `another run of ${lab} is using namespace ${namespace} now${which}: the two purge and reset each other's queues and rows, and either may FAIL — let it end first, or run this one with another --namespace`,
  );
}
