/**
 * npm run bench [-- --runs N] [-- --labs a,b]: wall time of `mqlab --help` and of each lab, run as a
 * user runs them (a fresh process each time) against warm services. Prints per lab the median, the
 * lab's floor (the waits the experiment itself needs) and their ratio; then the same for the lab's own
 * time (setup + run, from --json), which leaves out starting Node and connecting (~0.2 s per process).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { registry } from '../labs/registry.js';
import { median, ratio } from './bench-math.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'bin', 'mqlab.js');
const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const runs = Number(flag('--runs') ?? 5);
const only = flag('--labs')?.split(',');

async function time(argv: string[]): Promise<{ ms: number; ok: boolean; out: string; labMs: number }> {
  const t = performance.now();
  const r = await execa('node', [cli, ...argv], { reject: false, env: { ...process.env, NO_COLOR: '1' } });
  const ms = performance.now() - t;
  let labMs = NaN; // the lab's own time (setup + run), without process start and connecting
  if (argv.includes('--json')) labMs = JSON.parse(r.stdout).labs[0].timings.totalMs;
  return { ms, ok: r.exitCode === 0, out: `${r.stdout}\n${r.stderr}`, labMs };
}

const up = await execa('node', [cli, 'up'], { reject: false, all: true });
if (up.exitCode !== 0) {
  process.stderr.write(`bench: mqlab up failed:\n${up.all}\n`);
  process.exit(2);
}

const rows: string[][] = [['command', 'runs', 'median', 'floor', 'ratio', 'lab only', 'ratio', 'result']];
const help: number[] = [];
for (let i = 0; i < Math.max(runs, 10); i++) help.push((await time(['--help'])).ms);
rows.push(['mqlab --help', String(help.length), fmt(median(help)), '-', '-', '-', '-', median(help) < 300 ? 'ok (< 0.3 s)' : 'SLOW (>= 0.3 s)']);
print(rows.slice(-1));

let failed = false;
for (const lab of registry.filter((l) => !only || only.includes(l.name))) {
  const times: number[] = [];
  const labTimes: number[] = [];
  let ok = true;
  for (let i = 0; i < runs; i++) {
    const r = await time([lab.name, '--json']);
    times.push(r.ms);
    labTimes.push(r.labMs);
    if (!r.ok) {
      ok = false;
      process.stderr.write(`bench: ${lab.name} run ${i + 1} failed:\n${r.out}\n`);
    }
  }
  const m = median(times);
  const q = ratio(m, lab.floorMs);
  const own = median(labTimes);
  const qOwn = ratio(own, lab.floorMs);
  failed ||= !ok;
  const verdict = !ok ? 'FAILED' : q === null || q <= 1.5 ? 'ok' : qOwn !== null && qOwn <= 1.5 ? 'wall over 1.5 × floor (process start)' : 'over 1.5 × floor';
  rows.push([`mqlab ${lab.name}`, String(runs), fmt(m), lab.floorMs ? fmt(lab.floorMs) : '0', q === null ? '-' : q.toFixed(2), fmt(own), qOwn === null ? '-' : qOwn.toFixed(2), verdict]);
  print(rows.slice(-1));
}

process.stdout.write('\n');
print(rows, true);
process.exit(failed ? 1 : 0);

function fmt(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

function print(table: string[][], aligned = false) {
  if (!aligned) return void process.stderr.write(`bench: ${table[0].join('  ')}\n`);
  const w = table[0].map((_, c) => Math.max(...table.map((r) => r[c].length)));
  for (const r of table) process.stdout.write(r.map((cell, c) => (c === 0 ? cell.padEnd(w[c]) : cell.padStart(w[c]))).join('  ') + '\n');
}
