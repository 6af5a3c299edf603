/**
 * npm run proofs: a static check of what the labs declare (no services needed). For every lab of the
 * registry: each check in meta.checks is listed in `fails` by at least one broken variant of
 * labs/<lab>/meta.ts, and the lab has a fault test file, whose describeFaults (test/faults.ts) runs
 * every declared variant and asserts the FAIL lines its catalogue lists. Exits 1 on any gap.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { registry } from '../labs/registry.js';
import { gaps, report } from './fault-proofs.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const hasFaultTest = (lab: string) =>
  ['faults.int.test.ts', 'faults.cluster.int.test.ts'].some((suffix) =>
    fs.existsSync(path.join(root, 'labs', lab, `${lab}.${suffix}`)),
  );

const out = report(registry.map((meta) => gaps(meta, hasFaultTest(meta.name))));
process.stdout.write(out.lines.join('\n') + '\n');
process.exitCode = out.ok ? 0 : 1;
