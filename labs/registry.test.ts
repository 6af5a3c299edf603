/**
 * The lab-folder convention, checked: every folder under labs/ is one registry entry with
 * meta.ts, faults.ts, names.ts and lab.ts, a docs page and a README row. What a lab declares
 * (checks, checkpoints, broken variants) is kept true by the types and by the runner, which refuses
 * an undeclared check or checkpoint at run time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { labOptions } from '../src/lab/lab.js';
import { registry } from './registry.js';
import { catalogue } from './catalogue.js';

const LABS = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(LABS);
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const folders = fs
  .readdirSync(LABS, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

describe('the registry', () => {
  it("is the catalogue's labs, in its order, each with the catalogue's name and title", () => {
    expect(registry.map((m) => [m.name, m.title])).toEqual(catalogue.map((c) => [c.name, c.title]));
  });

  it('has one entry per lab folder, named as the folder, in the same shape', () => {
    expect(registry.map((m) => m.name).sort()).toEqual([...folders].sort());
    for (const lab of folders)
      for (const file of ['meta.ts', 'faults.ts', 'names.ts', 'lab.ts'])
        expect(fs.existsSync(path.join(LABS, lab, file)), `${lab}/${file}`).toBe(true);
  });

  it.each(registry.map((m) => [m.name, m] as const))('%s has its docs page and its README row', (name) => {
    expect(fs.existsSync(path.join(ROOT, 'docs', 'labs', `${name}.md`)), `docs/labs/${name}.md`).toBe(true);
    expect(readme).toContain(`| \`${name}\` |`);
  });

  it.each(registry.map((m) => [m.name, m] as const))(
    '%s describes each checkpoint and each broken variant in one line',
    (_name, meta) => {
      for (const text of [...Object.values(meta.checkpoints), ...Object.values(meta.faults).map((f) => f.breaks)]) {
        expect(text.trim().length, text).toBeGreaterThan(10);
        expect(text, 'one line').not.toContain('\n');
      }
    },
  );

  it.each(registry.map((m) => [m.name, m] as const))('%s parses its own defaults', (_name, meta) => {
    expect(() => labOptions<unknown>(meta)).not.toThrow();
    expect(meta.floorMs).toBeGreaterThanOrEqual(0);
  });
});
