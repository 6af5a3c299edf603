/**
 * npm run bench [-- --runs N] [-- --labs a,b]: wall time of `node -e 0`, `mqlab --help`, `mqlab list`
 * and of each lab, run as a user runs them (a fresh process each time) against warm services. Prints
 * per lab the median, the lab's floor (the waits the experiment itself needs: its fixed waits, plus
 * what the services themselves took in each run where the experiment sits out a node's stop and boot
 * or the database's stop and start, from the run's --json facts: `serviceWaitMs` in the lab's meta)
 * and their ratio; then the same for the lab's own time (setup + run, from --json), and the process
 * overhead (wall − own time: starting Node, loading, connecting, closing; a row of its own for the labs
 * that start no child, goal <= 200 ms). A lab passes at 1.5 × its
 * floor plus a process start for itself and each child (a start: the childless labs' median
 * overhead); a lab without waits at 1.5 × its starts (bench-math.ts allowedWallMs). Then the wall
 * time of `mqlab all` and of `mqlab all --jobs 4` (--jobs J to change), N runs each, next to their
 * schedule floor (the sum of the floors; with --jobs, the disruptive labs alone and the rest packed
 * J at a time by their floors; each run's floor with the services' waits that run measured).
 *
 * With --labs a,b only those labs' rows, no `all` rows.
 * npm run bench -- --all [--runs N] [--jobs J]: only the `all` / `all --jobs J` rows.
 * npm run bench -- --peer [--runs N] [--peer-dir DIR or MQLAB_PEER_DIR]: mqlab/seed wall per mode next to the seed's own
 * RetryLab program, on the services it hard-codes (scripts/bench-peer.ts); goal ≤ 0.5. retry and hold spend
 *   most of their wall time in the broker's own waits (two 500 ms TTLs; the dead-letter worker's timer), which
 *   both programs sit out: one more mqlab run with --json measures them, and the `lab only` columns show
 *   mqlab − waits and (mqlab − waits) / (seed − waits).
 * npm run bench -- --concurrent N [--labs a,b]: a class running one lab at once: for each lab, N runs
 * start together, each in its own namespace (bench_c1 … bench_cN); every run must pass.
 * npm run bench -- --audit [--queues N] [--runs N] [--offline]: first `mqlab audit FILE --json` on
 * generated definitions exports (scripts/bench-audit.ts topicDefinitions): 10,000 queues through a topic
 * dead-letter exchange, checked in under 1 s, and 100,000 queues, read and checked in under 10 s (each
 * with its CPU time: on a shared machine the wall time also measures the others' work); then, unless
 * --offline, `mqlab audit --vhost <vhost> --json` on a broker filled with N generated queues (10000
 * unless told, namespace bench_audit, removed at the end unless --keep): under 10 s. Run it on a set of
 * your own (MQLAB_HOME + MQLAB_PORT_OFFSET), not a shared one.
 * Every row carries the machine's load average (1 min) when it was measured: timings depend on it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { registry } from '../labs/registry.js';
import { allowedWallMs, argProblems, median, ratio, runFloorMs, scheduleFloorMs } from './bench-math.js';
import { peerRefusal, peerRuns, PEER_MODES, type PeerRun } from './bench-peer.js';
import { portOffset } from '../src/core/defaults.js';
import { dropNamespaces } from './bench-clean.js';
import { jobNamespace } from '../src/engine/jobs.js';
import { dropQueues, fillQueues, OFFLINE_BOUNDS, offlineRuns } from './bench-audit.js';
import { loadConfig } from '../src/core/config.js';
import type { LabMeta } from '../src/lab/lab.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'bin', 'mqlab.js');
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  // the usage is this file's opening comment
  const source = fs.readFileSync(path.join(root, 'scripts', 'bench.ts'), 'utf8');
  const usage = /^\/\*\*\n([\s\S]*?)\*\//.exec(source)?.[1] ?? '';
  process.stdout.write(usage.replace(/^ \* ?/gm, '') + '\n');
  process.exit(0);
}
const problems = argProblems(
  args,
  ['--runs', '--jobs', '--concurrent', '--queues', '--labs', '--peer-dir'],
  ['--all', '--peer', '--audit', '--keep', '--offline'],
);
if (problems.length) {
  process.stderr.write(`bench: ${problems.join('; ')}: npm run bench -- --help lists the arguments\n`);
  process.exit(2);
}
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const whole = (name: string, fallback: number, max: number): number => {
  const raw = flag(name) ?? String(fallback);
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= max)) {
    process.stderr.write(`bench: ${name} must be a whole number from 1 to ${max}, got '${raw}'\n`);
    process.exit(2);
  }
  return n;
};
const runs = whole('--runs', 5, 50);
const jobs = whole('--jobs', 4, 32);
const concurrent = args.includes('--concurrent') ? whole('--concurrent', 10, 20) : 0;
const auditQueues = args.includes('--audit') ? whole('--queues', 10_000, 100_000) : 0;
const peer = args.includes('--peer');
const only = flag('--labs')?.split(',');
const unknownLabs = (only ?? []).filter((n) => !registry.some((l) => l.name === n));
if (unknownLabs.length) {
  process.stderr.write(`bench: no lab named ${unknownLabs.join(', ')}: mqlab list shows them\n`);
  process.exit(2);
}
const labs = registry.filter((l) => !only || only.includes(l.name));
const config = loadConfig({}, process.env);

interface Timed {
  ms: number;
  ok: boolean;
  out: string;
  stdout: string;
}

async function time(argv: string[], command = [cli]): Promise<Timed> {
  const t = performance.now();
  const r = await execa('node', [...command, ...argv], { reject: false, env: { ...process.env, NO_COLOR: '1' } });
  return { ms: performance.now() - t, ok: r.exitCode === 0, out: `${r.stdout}\n${r.stderr}`, stdout: r.stdout };
}

/** what the bench reads of a lab's --json document */
interface LabsDoc {
  labs: {
    lab: string;
    status?: string;
    error?: string;
    checks?: { name: string; pass: boolean; expected: unknown; actual: unknown }[];
    timings: { totalMs: number };
    events: { status?: string; process?: string }[];
    facts?: Record<string, unknown>;
  }[];
}

/** each lab's document in one run's --json output (a lab run, or `all`) */
const docsOf = (r: Timed): LabsDoc['labs'] => {
  try {
    return (JSON.parse(r.stdout) as LabsDoc).labs;
  } catch {
    return [];
  }
};

/** the lab's own time (setup + run) from its --json document, without process start and connecting */
const labMsOf = (r: Timed): number => docsOf(r)[0]?.timings.totalMs ?? NaN;

/** the processes the lab started (each child ends with an 'exited' event under its own name) */
const childrenOf = (r: Timed): number =>
  new Set((docsOf(r)[0]?.events ?? []).filter((e) => e.status === 'exited').map((e) => e.process)).size;

const up = peer ? null : await execa('node', [cli, 'up'], { reject: false, all: true });
if (up && up.exitCode !== 0) {
  process.stderr.write(`bench: mqlab up failed:\n${up.all}\n`);
  process.exit(2);
}

/** wall − the lab's own time, for a lab that starts no child: Node's start, loading, connecting, closing */
const OVERHEAD_GOAL_MS = 200;

const load = () => os.loadavg()[0]?.toFixed(1) ?? '?';
process.stderr.write(`bench: ${os.cpus().length} CPU(s), load average ${load()} at the start\n`);
const rows: string[][] = [
  ['command', 'runs', 'median', 'floor', 'ratio', 'lab only', 'ratio', 'overhead', 'load', 'result'],
];
let failed = false;

const made: string[] = []; // the namespaces the runs below use, removed at the end
try {
  if (concurrent) await concurrentRuns(concurrent);
  else if (auditQueues) await auditRuns(auditQueues);
  else if (peer) await peerModes();
  else {
    if (!args.includes('--all')) await perLab();
    // a chosen few labs are not `mqlab all` (whose disruptive labs stop the services: not on a shared set)
    if (!only) await allRuns();
  }
} finally {
  if (made.length)
    process.stderr.write(
      `bench: removed ${await dropNamespaces(made)} queue(s), exchange(s), policies and table(s) of ${made.join(' ')}\n`,
    );
}
process.stderr.write(`bench: load average ${load()} at the end\n`);
process.stdout.write('\n');
print(rows);
process.exit(failed ? 1 : 0);

async function perLab() {
  // the bare Node start, and the commands that only print: at most 1.3 × a bare start
  const starts = [
    ['node -e 0', ['-e', '0'], []],
    ['mqlab --help', ['--help'], [cli]],
    ['mqlab list', ['list'], [cli]],
  ] as const;
  const bare: number[] = [];
  for (const [name, argv, command] of starts) {
    const done: number[] = [];
    for (let i = 0; i < Math.max(runs, 10); i++) done.push((await time([...argv], [...command])).ms);
    const m = median(done);
    if (!command.length) bare.push(m);
    const q = bare[0] ? m / bare[0] : NaN;
    const verdict = !command.length ? '-' : q <= 1.3 ? 'ok (<= 1.3 × node -e 0)' : 'SLOW (> 1.3 × node -e 0)';
    add([
      name,
      String(done.length),
      fmt(m),
      '-',
      command.length ? `${q.toFixed(2)} × node` : '-',
      '-',
      '-',
      '-',
      load(),
      verdict,
    ]);
  }
  // one process start (Node, loading, connecting, closing): the overhead of the labs that start no child so far
  const childless: number[] = [];
  const startMs = () => median(childless.length ? childless : bare);
  for (const lab of labs) {
    // a lab that needs what these services lack (a cluster) says SKIP at once: no row of timings to compare
    const missing = await lab.requires?.(config);
    if (missing) {
      add([
        `mqlab ${lab.name}`,
        '0',
        '-',
        lab.floorMs ? fmt(lab.floorMs) : '0',
        '-',
        '-',
        '-',
        '-',
        load(),
        `skipped: ${missing}`,
      ]);
      continue;
    }
    const done: Timed[] = [];
    for (let i = 0; i < runs; i++) done.push(await time([lab.name, '--json']));
    const ok = reportFailures(lab.name, done);
    const wall = median(done.map((r) => r.ms));
    const own = median(done.map(labMsOf));
    // the process around the lab: Node, loading, connecting, closing (child processes count here too)
    const overhead = median(done.map((r) => r.ms - labMsOf(r)));
    const children = Math.max(...done.map(childrenOf));
    if (children === 0) childless.push(overhead);
    // the floor of each run (a lab that sits out a service's own stop and start: what it took that run)
    const floor = median(done.map((r) => runFloorMs(lab, docsOf(r)[0]?.facts)));
    const q = ratio(wall, floor);
    const qOwn = ratio(own, floor);
    // the goal: 1.5 × the floor plus the process starts the lab needs (its own, and each child's);
    // without waits, 1.5 × its starts (allowedWallMs)
    const allowWall = allowedWallMs(floor, children + 1, startMs());
    const allowOwn = allowWall - startMs();
    const starts = `${children + 1} start${children ? 's' : ''}`;
    const rule = floor > 0 ? `1.5 × floor + ${starts}` : `no waits: 1.5 × ${starts}`;
    const verdict = !ok
      ? 'FAILED'
      : wall <= allowWall
        ? `ok (<= ${rule}: ${fmt(allowWall)})`
        : own <= allowOwn
          ? `wall over ${rule} (${fmt(allowWall)}): process start`
          : `over ${rule} (${fmt(allowWall)})`;
    const broker = floor - lab.floorMs;
    const measured = !broker
      ? ''
      : `; floor: ${lab.floorMs ? `${fmt(lab.floorMs)} + ` : ''}the services' own ${fmt(broker)} (measured)`;
    add([
      `mqlab ${lab.name}`,
      String(runs),
      fmt(wall),
      floor ? fmt(floor) : '0',
      q === null ? '-' : q.toFixed(2),
      fmt(own),
      qOwn === null ? '-' : qOwn.toFixed(2),
      fmt(overhead),
      load(),
      verdict + measured,
    ]);
  }
  // the goal of a process around a lab that starts no child: at most OVERHEAD_GOAL_MS beyond the lab's own time
  if (childless.length) {
    const o = median(childless);
    add([
      'process overhead',
      String(childless.length),
      fmt(o),
      '-',
      bare[0] ? `${(o / bare[0]).toFixed(2)} × node` : '-',
      '-',
      '-',
      fmt(o),
      load(),
      `${o <= OVERHEAD_GOAL_MS ? 'ok' : 'over'} (<= ${OVERHEAD_GOAL_MS} ms): the median of the childless labs' overheads above`,
    ]);
  }
}

/** `mqlab all` and `mqlab all --jobs J`, alternating, so both see the same machine; each next to its floor */
async function allRuns() {
  made.push('bench_all', ...registry.map((_, i) => jobNamespace('bench_jobs', i)));
  // the labs that run here (a lab that needs a cluster says SKIP at once and adds nothing)
  const running: LabMeta[] = [];
  for (const lab of registry) if (!(await lab.requires?.(config))) running.push(lab);
  const serial: Timed[] = [];
  const parallel: Timed[] = [];
  for (let i = 0; i < runs; i++) {
    serial.push(await time(['all', '--namespace', 'bench_all', '--json']));
    parallel.push(await time(['all', '--jobs', String(jobs), '--namespace', 'bench_jobs', '--json']));
  }
  // each run's schedule floor, with the services' own waits that run measured (--json: each lab's facts)
  const floorsOf = (r: Timed) => {
    const docs = docsOf(r);
    return running.map((lab) => ({ ...lab, floorMs: runFloorMs(lab, docs.find((d) => d.lab === lab.name)?.facts) }));
  };
  for (const [name, done, floor] of [
    ['mqlab all', serial, median(serial.map((r) => scheduleFloorMs(floorsOf(r), 1)))],
    [`mqlab all --jobs ${jobs}`, parallel, median(parallel.map((r) => scheduleFloorMs(floorsOf(r), jobs)))],
  ] as const) {
    const ok = reportFailures(name, done);
    const ms = done.map((r) => r.ms);
    const passed = done.filter((r) => r.ok).length;
    const q = ratio(median(ms), floor);
    add([
      name,
      String(runs),
      fmt(median(ms)),
      fmt(floor),
      q === null ? '-' : q.toFixed(2),
      '-',
      '-',
      '-',
      load(),
      `${ok ? (q !== null && q <= 1.3 ? 'ok (<= 1.3 × floor)' : 'over 1.3 × floor') : 'FAILED'}: ${passed}/${runs} passed, ${fmt(Math.min(...ms))}–${fmt(Math.max(...ms))}`,
    ]);
  }
}

/** mqlab next to the seed's own program, per mode: mqlab/seed wall, goal <= 0.5 (or why it skipped) */
async function peerModes() {
  const dir = flag('--peer-dir') ?? process.env.MQLAB_PEER_DIR ?? path.join(root, '..', 'shared', 'peer');
  const refusal = peerRefusal(dir, [...new Set([0, portOffset(process.env)])]);
  if (refusal) {
    add(['mqlab/seed', '0', '-', '-', '-', '-', '-', '-', load(), `SKIP: ${refusal}`]);
    return;
  }
  const modes = await peerRuns(dir, cli, runs, (line) => process.stderr.write(`bench: ${line}\n`));
  for (const { mode, seed, mqlab, brokerWaitMs: w } of modes) {
    const ok = seed.every((r) => r.ok) && mqlab.every((r) => r.ok);
    failed ||= !ok;
    const [s, m] = [median(seed.map((r) => r.ms)), median(mqlab.map((r) => r.ms))];
    const q = m / s;
    // the same summary line, character for character (a lab prints the line its source program
    // prints): else the two did not run the same thing
    const same = (runs: PeerRun[]) => runs.every((r) => r.summary === seed[0]?.summary);
    // a mode whose wall time is mostly the broker's own waits (TTLs, the dead-letter worker's timer) cannot
    // reach 0.5 while both programs wait them out: its own part is judged beside the wall ratio
    const own = w !== null && w < s ? (m - w) / (s - w) : null;
    const verdict = !ok
      ? 'FAILED'
      : !same(mqlab)
        ? 'summary lines differ'
        : q <= 0.5
          ? 'ok (<= 0.5)'
          : own !== null
            ? `over 0.5: the broker's ${fmt(w!)} of waits, which both sit out, are ${(w! / s).toFixed(2)} of the seed's wall alone (no program making them gets lower); beyond them ${own <= 0.5 ? 'ok' : 'over'} (${own.toFixed(2)})`
            : 'over 0.5';
    add([
      `mqlab/seed ${mode}`,
      String(runs),
      fmt(m),
      fmt(s),
      q.toFixed(2),
      own !== null ? fmt(m - w!) : '-',
      own !== null ? own.toFixed(2) : '-',
      '-',
      load(),
      `${verdict}: seed ${fmt(s)}`,
    ]);
  }
  if (modes.length !== PEER_MODES.length) failed = true;
}

/** for each lab, `n` runs at once in n namespaces: every one must pass */
async function concurrentRuns(n: number) {
  made.push(...Array.from({ length: n }, (_, i) => `bench_c${i + 1}`));
  // a lab that stops a service everyone shares (or kills a cluster node) cannot run n times at once
  const alone = labs.filter((l) => l.disruptive);
  if (alone.length)
    process.stderr.write(
      `bench: left out of --concurrent (they stop a service every run shares): ${alone.map((l) => l.name).join(', ')}\n`,
    );
  for (const lab of labs.filter((l) => !l.disruptive)) {
    const t = performance.now();
    const done = await Promise.all(
      Array.from({ length: n }, (_, i) => time([lab.name, '--namespace', `bench_c${i + 1}`])),
    );
    const wall = performance.now() - t;
    const ok = reportFailures(lab.name, done);
    const passed = done.filter((r) => r.ok).length;
    add([
      `${n} × mqlab ${lab.name}`,
      String(n),
      fmt(median(done.map((r) => r.ms))),
      lab.floorMs ? fmt(lab.floorMs) : '0',
      '-',
      '-',
      '-',
      '-',
      load(),
      `${ok ? 'ok' : 'FAILED'}: ${passed}/${n} passed in ${fmt(wall)}`,
    ]);
  }
}

/** `mqlab audit FILE` on generated exports: the offline bounds of docs/audit.md "Scale" */
async function offlineAuditRows() {
  for (const b of OFFLINE_BOUNDS) {
    const done = await offlineRuns(cli, b.queues, Math.min(runs, 3));
    const m = (f: (r: (typeof done)[number]) => number) => median(done.map(f));
    // judged in CPU time: the audit is one thread, and the wall time of a shared machine measures its other work too
    const [cpu, wall] =
      b.measure === 'checks' ? [m((r) => r.checkCpuMs), m((r) => r.checkMs)] : [m((r) => r.cpuMs), m((r) => r.wallMs)];
    const ok = cpu < b.boundMs;
    add([
      `mqlab audit FILE (${b.queues} queues, topic DLX)`,
      String(done.length),
      fmt(m((r) => r.wallMs)),
      '-',
      '-',
      '-',
      '-',
      '-',
      load(),
      `${ok ? 'ok' : 'SLOW'} (${b.measure === 'checks' ? 'checks' : 'the whole process'}: ${fmt(cpu)} CPU < ${fmt(b.boundMs)}; ${fmt(wall)} wall): read ${fmt(m((r) => r.readMs))} (${fmt(m((r) => r.readCpuMs))} CPU), checks ${fmt(m((r) => r.checkMs))} (${fmt(m((r) => r.checkCpuMs))} CPU), ${done[0]?.findings ?? 0} finding(s)`,
    ]);
    if (!ok) failed = true;
  }
}

/** `mqlab audit` of a vhost holding `count` generated queues (and whatever else it holds): under 10 s */
async function auditRuns(count: number) {
  await offlineAuditRows();
  if (args.includes('--offline')) return;
  const fillMs = await fillQueues(count);
  process.stderr.write(`bench: declared ${count} queue(s) in ${fmt(fillMs)}\n`);
  const vhost = config.vhost;
  const done: Timed[] = [];
  // --fail-on never: exit 0 is a completed audit, 2 is not; a loaded broker may take long per page: the bound is the whole audit's
  for (let i = 0; i < runs; i++)
    done.push(await time(['audit', '--vhost', vhost, '--json', '--fail-on', 'never', '--timeout', '120']));
  const docs = done.map((r) => {
    try {
      return JSON.parse(r.stdout) as {
        objects: { queues: number };
        findings: unknown[];
        timings: { readMs: number; checkMs: number; requests: number };
      };
    } catch {
      return null;
    }
  });
  const ok = reportFailures(`mqlab audit (${count} queues)`, done);
  const wall = median(done.map((r) => r.ms));
  const doc = docs.find(Boolean);
  const read = median(docs.map((d) => d?.timings.readMs ?? NaN));
  const check = median(docs.map((d) => d?.timings.checkMs ?? NaN));
  const detail = doc
    ? `${doc.objects.queues} queues read in ${fmt(read)} (${doc.timings.requests} GETs), checked in ${fmt(check)}, ${doc.findings.length} finding(s)`
    : 'no JSON';
  add([
    `mqlab audit (${count} queues)`,
    String(runs),
    fmt(wall),
    '-',
    '-',
    '-',
    '-',
    '-',
    load(),
    `${ok && wall < 10_000 ? 'ok (< 10 s)' : ok ? 'SLOW (>= 10 s)' : 'FAILED'}: ${detail}`,
  ]);
  if (wall >= 10_000) failed = true;
  // on this environment's broker (dropNamespaces reads the default services)
  if (!args.includes('--keep')) process.stderr.write(`bench: removed ${await dropQueues(count)} generated queue(s)\n`);
}

/** true when every run passed; else says which failed and their FAIL lines (or the output's end) */
function reportFailures(name: string, done: Timed[]): boolean {
  done.forEach((r, i) => {
    if (r.ok) return;
    // a --json run prints no FAIL lines: its document names the labs that did not pass, and their failed checks
    const failedLabs = docsOf(r)
      .filter((d) => d.status !== 'passed' && d.status !== 'skipped')
      .map(
        (d) =>
          `${d.lab}: ${d.status}${d.error ? ` (${d.error})` : ''}${(d.checks ?? [])
            .filter((c) => !c.pass)
            .map((c) => ` FAIL ${c.name}: expected=${JSON.stringify(c.expected)} actual=${JSON.stringify(c.actual)}`)
            .join(';')}`,
      );
    const fails = [...r.out.split('\n').filter((l) => /^FAIL |^mqlab: /.test(l)), ...failedLabs];
    process.stderr.write(
      `bench: ${name} run ${i + 1} failed:\n  ${(fails.length ? fails : r.out.trim().split('\n').slice(-5)).join('\n  ')}\n`,
    );
  });
  const ok = done.every((r) => r.ok);
  failed ||= !ok;
  return ok;
}

function add(row: string[]) {
  rows.push(row);
  process.stderr.write(`bench: ${row.join('  ')}\n`);
}

function fmt(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

/** the table on stdout, columns aligned */
function print(table: string[][]) {
  const w = (table[0] ?? []).map((_, c) => Math.max(...table.map((r) => r[c]?.length ?? 0)));
  for (const r of table)
    process.stdout.write(
      r.map((cell, c) => (c === 0 ? cell.padEnd(w[c] ?? 0) : cell.padStart(w[c] ?? 0))).join('  ') + '\n',
    );
}
