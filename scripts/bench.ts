/**
 * npm run bench [-- --runs N] [-- --labs a,b]: wall time of `mqlab --help` and of each lab, run as a
 * user runs them (a fresh process each time) against warm services. Prints per lab the median, the
 * lab's floor (the waits the experiment itself needs) and their ratio.
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

async function time(argv: string[]): Promise<{ ms: number; ok: boolean; out: string }> {
  const t = performance.now();
  const r = await execa('node', [cli, ...argv], { reject: false, env: { ...process.env, NO_COLOR: '1' } });
  return { ms: performance.now() - t, ok: r.exitCode === 0, out: `${r.stdout}\n${r.stderr}` };
}

const up = await execa('node', [cli, 'up'], { reject: false, all: true });
if (up.exitCode !== 0) {
  process.stderr.write(`bench: mqlab up failed:\n${up.all}\n`);
  process.exit(2);
}

const rows: string[][] = [['command', 'runs', 'median', 'floor', 'ratio', 'result']];
const help: number[] = [];
for (let i = 0; i < Math.max(runs, 10); i++) help.push((await time(['--help'])).ms);
rows.push(['mqlab --help', String(help.length), fmt(median(help)), '-', '-', median(help) < 300 ? 'ok (< 0.3 s)' : 'SLOW (>= 0.3 s)']);
print(rows.slice(-1));

let failed = false;
for (const lab of registry.filter((l) => !only || only.includes(l.name))) {
  const times: number[] = [];
  let ok = true;
  for (let i = 0; i < runs; i++) {
    const r = await time([lab.name]);
    times.push(r.ms);
    if (!r.ok) {
      ok = false;
      process.stderr.write(`bench: ${lab.name} run ${i + 1} failed:\n${r.out}\n`);
    }
  }
  const m = median(times);
  const q = ratio(m, lab.floorMs);
  failed ||= !ok;
  rows.push([`mqlab ${lab.name}`, String(runs), fmt(m), lab.floorMs ? fmt(lab.floorMs) : '0', q === null ? '-' : q.toFixed(2), !ok ? 'FAILED' : q !== null && q > 1.5 ? 'over 1.5 × floor' : 'ok']);
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
