/**
 * The docs (the lists copied from the labs' metas are labs/conventions.test.ts's):
 * - no Chinese (CJK) text is left in docs/ or the README outside a block marked as the original:
 *   `<details><summary>原文 (original)</summary> … </details>`.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../labs/registry.js';

const root = join(import.meta.dirname, '..');
const read = (...p: string[]) => readFileSync(join(root, ...p), 'utf8');

/** CJK text outside `<details><summary>原文 (original)</summary> … </details>` blocks */
export function untranslated(markdown: string): string[] {
  const outside = markdown.replace(/<details>\s*<summary>原文 \(original\)<\/summary>[\s\S]*?<\/details>/g, '');
  return outside.split('\n').filter((line) => /[\p{Script=Han}\u3000-\u303f\uff00-\uffef]/u.test(line));
}

describe('docs are in English', () => {
  const pages = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join('docs', f)),
    ...readdirSync(join(root, 'docs', 'labs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join('docs', 'labs', f)),
  ].filter((p) => existsSync(join(root, p)));

  for (const p of pages) {
    it(`${p} has no untranslated Chinese outside an original-text block`, () => {
      expect(untranslated(read(p))).toEqual([]);
    });
  }

  it('the scan sees Chinese, and accepts it only inside a marked original block', () => {
    expect(untranslated('see §4 归档链路设计 here')).toHaveLength(1);
    expect(untranslated('x\n<details><summary>原文 (original)</summary>\n\n> 归档链路设计\n\n</details>\n')).toEqual(
      [],
    );
    expect(untranslated('<details><summary>more</summary>归档</details>')).toHaveLength(1);
  });
});

/** a page's "## Try this" section ('' without one) */
const tryThis = (markdown: string) => markdown.split(/^## /m).find((s) => /^Try this\s*\n/.test(s)) ?? '';

describe('"Try this" SQL names the run\'s own tables', () => {
  for (const { name } of registry) {
    it(`docs/labs/${name}.md`, () => {
      const section = tryThis(read('docs', 'labs', `${name}.md`));
      // a student on a shared database copies these: the namespaced table (lab.s3_…), never another run's
      const tables = [...section.matchAll(/\blab\.([a-z_][a-z0-9_]*)/g)].map((m) => m[1]!);
      expect(
        tables.filter((t) => !t.startsWith('s3_')),
        'tables without the s3_ namespace',
      ).toEqual([]);
      if (/\b(SELECT|DELETE|UPDATE|INSERT)\b/.test(section))
        expect(section).toContain(`mqlab ${name} --namespace s3 --names`);
    });
  }
});
