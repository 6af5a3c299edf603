/**
 * Each integration test file runs in its own namespace (`useNamespace('…')` from test/helpers.ts),
 * so what one file leaves behind (a queue, a row, a policy) never decides another file's verdict.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const files = ['labs', 'test', 'src', 'scripts']
  .flatMap((dir) => readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)))
  .filter((f) => f.endsWith('.int.test.ts'))
  .sort();

/** the namespaces a file gives useNamespace('…') */
function namespacesOf(file: string) {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/\buseNamespace\('([a-z0-9_]*)'\)/g)].map((m) => m[1] ?? '');
}

describe('integration test files', () => {
  it('exist (the glob finds them)', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it('each call useNamespace once, each with a namespace of its own', () => {
    const byFile = files.map((f) => [f, namespacesOf(f)] as const);
    expect(byFile.filter(([, ns]) => ns.length !== 1).map(([f]) => f)).toEqual([]);
    const seen = new Map<string, string>();
    for (const [file, [ns]] of byFile) {
      const other = seen.get(ns ?? '');
      expect(other, `${file} and ${other} both use namespace '${ns}'`).toBeUndefined();
      seen.set(ns ?? '', file);
    }
  });
});
