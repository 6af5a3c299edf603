/**
 * Each integration test file runs in a namespace of its own (`useNamespace(import.meta.url)` from
 * test/helpers.ts, or a literal), so what one file leaves behind (a queue, a row, a policy) never
 * decides another file's verdict, and the files can run at the same time (vitest.config.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INT_TEST, namespaceOfFile } from './namespace.js';

const root = join(import.meta.dirname, '..');
const files = ['labs', 'test', 'src', 'scripts']
  .flatMap((dir) => readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)))
  .filter((f) => f.endsWith(INT_TEST))
  .sort();

const LITERAL = /[a-z][a-z0-9_]{0,23}/.source;

/** what a file says about namespaces: its useNamespace calls, and every literal namespace it runs a lab in */
export function namespacesIn(file: string, text: string) {
  const calls = [...text.matchAll(/\buseNamespace\(([^)]*)\)/g)].map((m) =>
    m[1] === 'import.meta.url' ? namespaceOfFile(file) : /^'([a-z0-9_]*)'$/.exec(m[1] ?? '')?.[1],
  );
  const literals = [
    ...text.matchAll(new RegExp(`'--namespace', '(${LITERAL})'`, 'g')),
    ...text.matchAll(new RegExp(`\\b(?:MQLAB_NAMESPACE|namespace): '(${LITERAL})'`, 'g')),
    ...text.matchAll(new RegExp(`\\bconst NS = '(${LITERAL})'`, 'g')),
  ].map((m) => m[1] ?? '');
  return { calls, namespaces: [...new Set([...calls.filter((c) => c !== undefined), ...literals])] };
}

/**
 * the files that type the pages' Try-this lines as printed: the pages' namespace (s3) or none, as the
 * page gives it. They never run on one set at once: try-this.int on the pages' set, the disruptive one
 * on the disruptive set (vitest.config.ts), the cluster one on a cluster; without those sets, one after
 * the other (SERIAL)
 */
const PAGE_WALKERS = [
  'test/try-this.int.test.ts',
  'test/try-this-disruptive.int.test.ts',
  'test/try-this-failover.cluster.int.test.ts',
  'test/try-this-cut.cluster.int.test.ts',
];

const byFile = files.map((f) => ({ file: f, ...namespacesIn(f, readFileSync(join(root, f), 'utf8')) }));

describe('integration test files', () => {
  it('exist (the glob finds them)', () => {
    expect(files.length).toBeGreaterThan(40);
  });

  it('each calls useNamespace once, with import.meta.url or a literal (the six older lab files: a literal namespace)', () => {
    const wrong = byFile.filter(({ calls }) => calls.length !== 1 || calls[0] === undefined);
    expect(wrong.map(({ file, calls }) => `${file}: useNamespace ${calls.length}×`)).toEqual([]);
  });

  it('no two files share a namespace, and no namespace is another file’s followed by _ or .', () => {
    const owner = new Map<string, string>();
    const clashes: string[] = [];
    for (const { file, namespaces } of byFile)
      for (const ns of namespaces) {
        const other = owner.get(ns);
        if (other && !(PAGE_WALKERS.includes(file) && PAGE_WALKERS.includes(other)))
          clashes.push(`${file} and ${other} both use '${ns}'`);
        owner.set(ns, file);
      }
    for (const [a, fileA] of owner)
      for (const [b, fileB] of owner)
        if (a && fileA !== fileB && (b.startsWith(`${a}_`) || b.startsWith(`${a}.`)))
          clashes.push(`${fileB}'s '${b}' starts with ${fileA}'s '${a}_'`);
    expect(clashes).toEqual([]);
  });

  it('a file name gives a valid namespace of letters and digits; the checker sees a shared or missing one', () => {
    expect(namespaceOfFile('file:///x/labs/retry-dlq/replay-gate.int.test.ts')).toBe('replaygate');
    expect(namespaceOfFile('labs/dead-letter-reasons/dead-letter-reasons.faults.int.test.ts')).toBe(
      'deadletterreasonsfaults',
    );
    expect(() => namespaceOfFile('test/helpers.ts')).toThrow();
    expect(
      namespacesIn('labs/a/a.int.test.ts', "useNamespace(import.meta.url); mqlab(['a', '--namespace', 'a_two'])")
        .namespaces,
    ).toEqual(['a', 'a_two']);
    expect(namespacesIn('labs/a/a.int.test.ts', "const NS = 'itest';").calls).toEqual([]);
    expect(namespacesIn('labs/a/a.int.test.ts', 'useNamespace(ns)').calls).toEqual([undefined]);
  });
});
