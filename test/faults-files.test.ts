/**
 * The fault tests' shape, read from their source: every lab of the registry has
 * labs/<lab>/<lab>.faults.int.test.ts, it runs its broken variants with test/faults.ts, and its
 * namespace is its own, so a leftover of another file never decides it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../labs/registry.js';
import { ROOT } from './helpers.js';

const files = registry.map(({ name }) => ({ lab: name, file: path.join(ROOT, 'labs', name, `${name}.faults.int.test.ts`) }));
const source = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
/** the namespace literals a fault test names: `namespace: '…'`, `const namespace = '…'` or `const NS = '…'` */
const namespacesOf = (src: string) => [...src.matchAll(/(?:namespace:\s*|const (?:namespace|NS) = )'([^']*)'/g)].map((m) => m[1]);

describe('fault test files', () => {
  it.each(files)('$lab has one, using test/faults.ts and one namespace literal', ({ file }) => {
    const src = source(file);
    expect(src, `${file} is missing`).not.toBe('');
    expect(src).toContain("from '../../test/faults.js'");
    expect(namespacesOf(src)).toHaveLength(1);
  });

  it('no two of them share a namespace, nor one with the integration files (t_<lab>)', () => {
    const all = files.flatMap(({ file }) => namespacesOf(source(file)));
    expect(all).toHaveLength(files.length);
    expect(new Set(all).size).toBe(all.length);
    for (const ns of all) expect(ns, 'the lab integration files use t_<lab>').not.toMatch(/^t_/);
  });
});
