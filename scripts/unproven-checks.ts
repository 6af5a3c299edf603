/**
 * npm run proofs [-- --from report.json …]: lists the checks of every lab in the registry that no
 * fault test (labs/<lab>/<lab>.faults.int.test.ts, asserting 'FAIL <check>:') shows failing, and
 * exits 1 when there is any (or when a fault test asserts a name the lab has no check for).
 *
 * The check names come from the labs themselves, not from a list that could drift: one
 * `mqlab all --json` run against the services (namespace `proofs`), or the --json documents of runs
 * given with --from (repeatable: e.g. `mqlab all` on one node and `mqlab quorum-failover` on a
 * cluster; a lab skipped in one document is taken from another). A lab that did not complete or was
 * skipped in every document has no names to list: it is reported, and the script exits 1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { registry } from '../labs/registry.js';
import { assertedFails, gaps, labOfFaultTest, report, type ProofGaps } from './fault-proofs.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const from = args.flatMap((a, i) => (a === '--from' && args[i + 1] ? [args[i + 1]!] : []));

interface JsonLab {
  lab: string;
  status: string;
  checks: { name: string }[];
  skipped?: string;
  error?: unknown;
}

/** the labs of one --json document; none (said on stderr) when the run left no document */
function labsIn(file: string): JsonLab[] {
  try {
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { labs: JsonLab[] }).labs;
  } catch (err) {
    process.stderr.write(`proofs: no --json document in ${file} (${(err as Error).message.split('\n')[0]})\n`);
    return [];
  }
}

async function labReports(): Promise<JsonLab[]> {
  if (from.length) return from.flatMap(labsIn);
  process.stderr.write('proofs: running `mqlab all --json --namespace proofs` for the check names of every lab…\n');
  const r = await execa('node', [path.join(root, 'bin', 'mqlab.js'), 'all', '--json', '--namespace', 'proofs'], { reject: false, env: { ...process.env, NO_COLOR: '1' } });
  if (!r.stdout.trim().startsWith('{')) {
    process.stderr.write(`proofs: mqlab all printed no JSON (exit ${r.exitCode}): ${r.stderr.trim().split('\n').pop() ?? ''}\n`);
    process.exit(2);
  }
  return (JSON.parse(r.stdout) as { labs: JsonLab[] }).labs;
}

/** check names each lab's fault tests assert failing */
function provenByLab(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const entry of fs.readdirSync(path.join(root, 'labs'), { recursive: true, withFileTypes: true })) {
    const lab = entry.isFile() ? labOfFaultTest(entry.name) : null;
    if (!lab) continue;
    const names = assertedFails(fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8'));
    out.set(lab, new Set([...(out.get(lab) ?? []), ...names]));
  }
  return out;
}

/** per lab, a report that ran (passed or failed) before one that was skipped or did not complete */
const ran = (r: JsonLab) => r.status !== 'skipped' && r.status !== 'error';
const reports = new Map<string, JsonLab>();
for (const r of await labReports()) {
  const seen = reports.get(r.lab);
  if (!seen || (ran(r) && !ran(seen))) reports.set(r.lab, r);
}
const proven = provenByLab();
const all: ProofGaps[] = [];
const lines: string[] = [];
for (const { name } of registry) {
  const r = reports.get(name);
  if (!r || r.status === 'skipped' || r.status === 'error') {
    lines.push(`${name}: no check names to list (${!r ? 'not in the report' : r.status === 'skipped' ? `skipped: ${r.skipped}` : 'did not complete'})`);
    continue;
  }
  const g = gaps({ lab: name, checks: r.checks.map((c) => c.name), proven: proven.get(name) ?? new Set() });
  all.push(g);
}
const out = report(all, (lab) => reports.get(lab)?.checks.length ?? 0);
if (lines.length) out.lines.push(`PROOFS: ${lines.length} lab(s) whose checks could not be listed`);
process.stdout.write([...lines, ...out.lines].join('\n') + '\n');
process.exitCode = out.ok && lines.length === 0 ? 0 : 1;
