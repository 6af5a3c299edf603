/**
 * What the teacher's board shows, read from the rows the students' runs write
 * (`mqlab_class.runs`, src/class/recorder.ts) by the superuser: per student of the class, their
 * runs, newest first — lab, verdict, failed checks, time, prediction — and whether a run marked
 * running still has its process (its recording connection is alive), else it ended without a verdict.
 */
import type { Sql } from 'postgres';
import { BOARD_SCHEMA } from './database.js';

type RunState = 'running' | 'passed' | 'failed' | 'skipped' | 'error' | 'lost';

interface BoardRun {
  id: number;
  lab: string;
  namespace: string;
  state: RunState;
  /** failed checks: name, expected, actual (as the FAIL lines print them) */
  fails: { name: string; expected: string; actual: string }[];
  checks: { passed: number; total: number } | null;
  predict: string | null;
  prediction: { name: string; said: string; op?: string; actual: string | null; right: boolean | null }[] | null;
  /** why: the SKIP reason, the error line */
  why: string | null;
  started: string;
  ms: number | null;
}

interface BoardStudent {
  name: string;
  runs: BoardRun[];
}

export interface Board {
  at: string;
  students: BoardStudent[];
}

/** the most runs a student's row carries (the newest) */
const RUNS_SHOWN = 40;

interface Row {
  id: string;
  student: string;
  lab: string;
  namespace: string;
  status: string;
  fails: BoardRun['fails'];
  checks: BoardRun['checks'];
  predict: string | null;
  prediction: BoardRun['prediction'];
  skipped: string | null;
  error: string | null;
  started_at: Date;
  ms: number | null;
  alive: boolean;
}

export async function readBoard(sql: Sql, students: readonly string[]): Promise<Board> {
  const rows = await sql<Row[]>`
    SELECT * FROM (
      SELECT r.id, r.student, r.lab, r.namespace, r.status, r.fails, r.checks, r.predict, r.prediction,
             r.skipped, r.error, r.started_at, r.ms,
             EXISTS (SELECT FROM pg_stat_activity a WHERE a.pid = r.backend) AS alive,
             row_number() OVER (PARTITION BY r.student ORDER BY r.id DESC) AS n
      FROM ${sql(BOARD_SCHEMA)}.runs r) x
    WHERE n <= ${RUNS_SHOWN} ORDER BY id DESC`;
  const by = new Map<string, BoardRun[]>(students.map((s) => [s, []]));
  for (const r of rows) {
    const runs = by.get(r.student) ?? by.set(r.student, []).get(r.student)!;
    runs.push({
      id: Number(r.id),
      lab: r.lab,
      namespace: r.namespace,
      state: r.status === 'running' && !r.alive ? 'lost' : (r.status as RunState),
      fails: r.fails,
      checks: r.checks && r.checks.total !== undefined ? r.checks : null,
      predict: r.predict,
      prediction: r.prediction,
      why: r.skipped ?? r.error,
      started: r.started_at.toISOString(),
      ms: r.ms,
    });
  }
  const names = [...by.keys()].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return { at: new Date().toISOString(), students: names.map((name) => ({ name, runs: by.get(name)! })) };
}
