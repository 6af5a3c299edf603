/**
 * The teacher's own run on a set with a class: a lab that stops, restarts or kills a service
 * (db-outage, broker-restart, the cluster labs) stops it under every student too. Before such a run
 * starts (before it queues for the set), say what it will stop and for whom, and go on only with
 * --yes, or a "y" typed at a terminal; without a terminal, refuse (exit 2) saying how to go on.
 */
import readline from 'node:readline';
import type { Config } from '../core/config.js';
import type { LabMeta } from '../lab/lab.js';
import { UsageError } from '../core/errors.js';
import { cannotRun } from '../engine/refusal.js';
import { listNames, readRoster } from './roster.js';
import { BOARD_SCHEMA } from './database.js';

/** the class's students of this set, or [] (none, or not this user's to read) */
function classOf(home: string): string[] {
  try {
    return readRoster(home)?.students.map((s) => s.name) ?? [];
  } catch {
    return [];
  }
}

/** how many of the students' runs are under way now (their recording connection alive), or null when unknown */
async function runsUnderWay(config: Config): Promise<number | null> {
  try {
    const { postgresAdmin } = await import('../services/admin.js');
    const sql = postgresAdmin(config, 'lab');
    try {
      const [row] = await sql<{ n: string }[]>`
        SELECT count(*) AS n FROM ${sql(BOARD_SCHEMA)}.runs r
        WHERE r.status = 'running' AND EXISTS (SELECT FROM pg_stat_activity a WHERE a.pid = r.backend)`;
      return Number(row?.n ?? 0);
    } finally {
      await sql.end({ timeout: 1 });
    }
  } catch {
    return null;
  }
}

export async function confirmStopping(
  entries: readonly LabMeta[],
  config: Config,
  what: string,
  yes: boolean,
): Promise<void> {
  if (config.student) return; // a student's run never stops anything (src/engine/refusal.ts)
  const students = classOf(config.home);
  if (!students.length) return;
  const stopping: string[] = [];
  for (const e of entries) if (e.disruptive && !(await cannotRun(e, config))) stopping.push(e.name);
  if (!stopping.length) return;
  const busy = await runsUnderWay(config);
  const labs = stopping.join(', ');
  const line = `${labs} ${stopping.length > 1 ? 'stop, restart or reconfigure services' : 'stops, restarts or reconfigures a service'} of this set, under the class of ${students.length} student(s) who use it (${listNames(students)}${busy === null ? '' : `; ${busy} of their runs under way now`}): their runs wait or fail meanwhile`;
  const them = stopping.length > 1 ? 'them' : 'it';
  // `mqlab all` can leave them out; a lab run alone is that lab
  const hint = `add --yes to stop ${them} anyway${what === 'mqlab all' ? `, or leave ${them} out: --skip ${stopping.join(',')}` : ''}`;
  const say = (l: string) => void process.stderr.write(`${what}: ${l}\n`);
  if (yes) return say(`${line}; going on (--yes)`);
  if (!process.stdin.isTTY || !process.stderr.isTTY)
    throw new UsageError(`${what === 'mqlab all' ? 'all: ' : ''}${line}`, hint);
  say(line);
  if (!(await ask(`${what}: stop ${stopping.length > 1 ? 'them' : 'it'} under the class? [y/N] `)))
    throw new UsageError(`${what === 'mqlab all' ? 'all' : what}: not started, nothing stopped`, hint);
}

async function ask(prompt: string): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await new Promise<string>((resolve) => rl.question(prompt, resolve));
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
