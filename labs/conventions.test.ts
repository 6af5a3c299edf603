/**
 * The lab convention, checked in one place (docs/developing.md, "Add a lab", says the same): every
 * folder under labs/ is one catalogue entry with its meta.ts, names.ts, lab.ts and variants.ts and a
 * fault test; every check a lab declares is failed by one of its broken variants, and every variant it
 * declares is wired in its variants.ts, which nothing else of the lab imports; every list that
 * copies the metas (each page's checkpoints and variants, the README and docs tables, labs/titles.ts)
 * is what `npm run docs` writes. On any drift it says what to do.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { labOptions } from '../src/lab/lab.js';
import { registry } from './registry.js';
import { catalogue } from './catalogue.js';
import { between, faultTestFile, outOfStep } from '../scripts/lab-pages.js';
import { gaps } from '../scripts/fault-proofs.js';

const LABS = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(LABS);
const folders = fs
  .readdirSync(LABS, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

describe('the lab convention', () => {
  it('one catalogue entry per lab folder, named as the folder, with its meta loaded under that name', () => {
    expect(catalogue.map((c) => c.name).sort(), 'a folder without its line in labs/catalogue.ts').toEqual(
      [...folders].sort(),
    );
    expect(registry.map((m) => m.name)).toEqual(catalogue.map((c) => c.name));
  });

  it.each(folders)('%s has its files: meta.ts, names.ts, lab.ts, variants.ts, a fault test, a docs page', (lab) => {
    for (const file of ['meta.ts', 'names.ts', 'lab.ts', 'variants.ts'])
      expect(fs.existsSync(path.join(LABS, lab, file)), `labs/${lab}/${file}`).toBe(true);
    expect(fs.existsSync(path.join(ROOT, faultTestFile(ROOT, lab))), faultTestFile(ROOT, lab)).toBe(true);
    expect(fs.existsSync(path.join(ROOT, 'docs', 'labs', `${lab}.md`)), `docs/labs/${lab}.md`).toBe(true);
  });

  it.each(registry.map((m) => [m.name, m] as const))('%s: every check is failed by a declared variant', (_n, m) => {
    const g = gaps(m, true);
    expect(g.unproven, 'checks no variant lists in `fails`').toEqual([]);
    expect(g.badVariants, 'variants that fail nothing').toEqual([]);
    expect(m.checks.length).toBeGreaterThan(0);
  });

  it.each(registry.map((m) => [m.name, m] as const))(
    '%s: variants.ts wires every declared variant (and no other), and only the catalogue loads it',
    async (name, m) => {
      const file = pathToFileURL(path.join(LABS, name, 'variants.ts')).href;
      const module = (await import(/* @vite-ignore */ file)) as Record<string, object>;
      // the lab's own process's variants (`variants`) load through its catalogue line; a child's through rt.steps
      expect(Boolean(m.variants), 'the catalogue line loads variants.ts exactly when it exports `variants`').toBe(
        'variants' in module,
      );
      const exported = Object.values(module);
      const wired = exported.flatMap((v) => Object.keys(v));
      expect([...new Set(wired)].sort(), 'the variants.ts entries').toEqual(Object.keys(m.faults).sort());
      expect(wired.length, 'a variant wired twice (in the lab and a child process)').toBe(new Set(wired).size);
      const importers = fs
        .readdirSync(path.join(LABS, name))
        .filter((f) => f.endsWith('.ts') && f !== 'variants.ts' && !f.endsWith('.test.ts'))
        .filter((f) => /from '\.\/variants\.js'/.test(fs.readFileSync(path.join(LABS, name, f), 'utf8')));
      expect(importers, 'files that import variants.ts (ask ctx.steps / rt.steps instead)').toEqual([]);
    },
  );

  it.each(registry.map((m) => [m.name, m] as const))('%s: one-line texts, and its defaults parse', (_n, m) => {
    for (const text of [
      m.title,
      m.summary,
      ...Object.values(m.checkpoints),
      ...Object.values(m.faults).map((f) => f.breaks),
    ]) {
      expect(text.trim().length, text).toBeGreaterThan(10);
      expect(text, 'one line').not.toContain('\n');
    }
    expect(() => labOptions<unknown>(m)).not.toThrow();
    expect(m.floorMs).toBeGreaterThanOrEqual(0);
  });

  it('every list copied from the metas is in step: run `npm run docs` when this fails', () => {
    expect(outOfStep(ROOT, registry), 'out of step with the labs’ meta.ts: run `npm run docs`').toEqual([]);
  });

  it('a generated section is replaced between its markers, and a missing marker is an error', () => {
    const b = "<!-- x: generated from the labs' meta.ts by `npm run docs`; edit the meta, not here -->";
    const page = `# p\n\n${b}\n\nold\n\n<!-- end of the generated section -->\n\nrest\n`;
    const once = between(page, 'x', 'new');
    expect(once).toBe(`# p\n\n${b}\n\nnew\n\n<!-- end of the generated section -->\n\nrest\n`);
    expect(between(once, 'x', 'new')).toBe(once);
    expect(() => between('# p\n', 'x', 'new')).toThrow(/no .* marker/);
  });
});
