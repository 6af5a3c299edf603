#!/usr/bin/env node
/**
 * npm run typecheck: tsconfig.test.json — the whole project, tests included, with
 * noUncheckedIndexedAccess — type-checked without emitting anything. Every error fails, with one
 * exception while other branches still change them: in the labs' own code and unit tests
 * (labs/<lab>/*.ts, not <lab>.int.test.ts) an error that only noUncheckedIndexedAccess finds is
 * listed as pending, not failed; so is one in a file listed in FROM_MAIN. Any other error there (found with the flag off too) still fails.
 * `--strict` makes the pending ones fail as well (the goal: remove PENDING once they are fixed).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LAB_CODE = /^labs\/[^/]+\/(?!.*\.int\.test\.ts$)[^/]+\.ts$/;
// files that came from main (html, services, safety, time labs) after this check was written and
// still have noUncheckedIndexedAccess errors: pending like the labs' code until they are fixed
const FROM_MAIN = new Set([
  'labs/order-timeout/order-timeout.int.test.ts',
  'labs/retry-dlq/replay-gate.int.test.ts',
  'src/report/html-depths.ts',
  'src/report/html-layout.test.ts',
  'src/report/html-layout.ts',
  'src/report/html-timeline.ts',
  'src/report/html.test.ts',
  'src/report/html.ts',
  'test/bad-input.int.test.ts',
  'test/least-privilege-processes.int.test.ts',
]);
const PENDING = { test: (file) => LAB_CODE.test(file) || FROM_MAIN.has(file) };
const strict = process.argv.includes('--strict');

function diagnostics(overrides) {
  const file = path.join(root, 'tsconfig.test.json');
  const config = ts.getParsedCommandLineOfConfigFile(file, overrides, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d]) });
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences });
  return ts.getPreEmitDiagnostics(program);
}

const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
const where = (d) => (d.file ? path.relative(root, d.file.fileName) : '');
function fail(list) {
  process.stderr.write(ts.formatDiagnostics(list, host));
  process.stderr.write(`typecheck: ${list.length} error(s)\n`);
  process.exit(1);
}

const base = diagnostics({ noUncheckedIndexedAccess: false });
if (base.length) fail(base);
const all = diagnostics({});
const pending = strict ? [] : all.filter((d) => PENDING.test(where(d)));
const errors = all.filter((d) => !pending.includes(d));
if (pending.length) {
  const files = [...new Set(pending.map(where))].sort();
  process.stdout.write(`typecheck: ${pending.length} noUncheckedIndexedAccess error(s) pending in the labs' own code and the files listed in FROM_MAIN (npm run typecheck -- --strict lists them):\n`);
  for (const f of files) process.stdout.write(`  ${f}: ${pending.filter((d) => where(d) === f).length}\n`);
}
if (errors.length) fail(errors);
process.stdout.write(`typecheck: no errors${pending.length ? ' outside the pending ones' : ''} (${path.relative(root, path.join(root, 'tsconfig.test.json'))}, tests included)\n`);
