/**
 * The fault tests' shape, read from their source: every lab of the registry has
 * labs/<lab>/<lab>.faults.int.test.ts and it runs its broken variants with test/faults.ts.
 * That each runs in a namespace of its own is checked for every integration file in
 * test/int-namespaces.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../labs/registry.js';
import { ROOT } from './helpers.js';

// a lab that needs the cluster has its faults in the cluster suite: <lab>.faults.cluster.int.test.ts
const faultsFile = (name: string) =>
  [`${name}.faults.int.test.ts`, `${name}.faults.cluster.int.test.ts`].map((f) => path.join(ROOT, 'labs', name, f)).find((f) => fs.existsSync(f)) ?? `labs/${name}/${name}.faults.int.test.ts`;
const files = registry.map(({ name }) => ({ lab: name, file: faultsFile(name) }));

describe('fault test files', () => {
  it.each(files)('$lab has one, using test/faults.ts', ({ file }) => {
    const src = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    expect(src, `${file} is missing`).not.toBe('');
    expect(src).toContain("from '../../test/faults.js'");
  });
});
