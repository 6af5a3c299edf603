/**
 * npm run examples: every reference consumer of examples/consumers/ through `mqlab check` (every group,
 * one seed), one line each — its file, the verdict, the anomalies found — and whether that is what the
 * catalogue declares (examples/consumers/catalogue.ts). Exit 1 when one is not. Needs the services
 * (`mqlab up`) and, for the Python ones, Debian's python3-pika and python3-psycopg2.
 *   npm run examples -- --seed 7 --only crash,poison --filter python
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { REFERENCE_CONSUMERS, commandOf, exampleSql } from '../examples/consumers/catalogue.js';
import { GROUP_NAMES } from '../src/check/group-names.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({
  options: { seed: { type: 'string', default: '1' }, only: { type: 'string' }, filter: { type: 'string' } },
});
const groups = values.only?.split(',') ?? [...GROUP_NAMES];
const sql = exampleSql(process.env.MQLAB_NAMESPACE ?? '');
let wrong = 0;
for (const c of REFERENCE_CONSUMERS.filter((x) => !values.filter || x.file.includes(values.filter))) {
  const t0 = Date.now();
  const r = await execa(
    'node',
    [
      'bin/mqlab.js',
      'check',
      '--consumer',
      commandOf(c),
      '--effects',
      sql.effects,
      '--cleanup',
      sql.cleanup,
      '--seed',
      values.seed,
      '--only',
      groups.join(','),
      '--json',
    ],
    { cwd: root, reject: false },
  );
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  let line: string;
  if (r.exitCode === 0 || r.exitCode === 1) {
    const doc = JSON.parse(r.stdout) as { result: string; groups: { checks: { name: string; pass: boolean }[] }[] };
    const failed = doc.groups.flatMap((g) => g.checks.filter((k) => !k.pass).map((k) => k.name));
    const ran = (f: string) => groups.includes(f.split('.')[0]!);
    const expected = c.fails.filter(ran);
    const allowed = [...expected, ...(c.mayFail ?? []).filter(ran)];
    const ok = expected.every((f) => failed.includes(f)) && failed.every((f) => allowed.includes(f));
    if (!ok) wrong += 1;
    line = `${c.file}  ${doc.result.toUpperCase()}  ${failed.join(' ') || '-'}  ${ok ? 'as declared' : `DECLARED ${expected.join(' ') || '-'}`}  (${seconds} s)`;
  } else {
    wrong += 1;
    line = `${c.file}  ERROR exit ${r.exitCode}: ${r.stderr.trim().split('\n').slice(-2).join(' ')}  (${seconds} s)`;
  }
  process.stdout.write(line + '\n');
}
process.stdout.write(
  wrong ? `examples: ${wrong} consumer(s) not as declared\n` : 'examples: every consumer as declared\n',
);
process.exitCode = wrong ? 1 : 0;
