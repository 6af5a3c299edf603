#!/usr/bin/env node
/**
 * npm run typecheck: tsconfig.test.json — the whole project, tests included, with
 * noUncheckedIndexedAccess — type-checked without emitting anything. Every error fails.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(root, 'tsconfig.test.json');
const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };

function fail(list) {
  process.stderr.write(ts.formatDiagnostics(list, host));
  process.stderr.write(`typecheck: ${list.length} error(s)\n`);
  process.exit(1);
}

const config = ts.getParsedCommandLineOfConfigFile(
  file,
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d]) },
);
const program = ts.createProgram({
  rootNames: config.fileNames,
  options: config.options,
  projectReferences: config.projectReferences,
});
const errors = ts.getPreEmitDiagnostics(program);
if (errors.length) fail(errors);
process.stdout.write(`typecheck: no errors (${path.relative(root, file)}, tests included)\n`);
