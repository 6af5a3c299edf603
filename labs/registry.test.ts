/**
 * The lab-folder convention, checked: every folder under labs/ is one registry entry with
 * meta.ts, names.ts and lab.ts, a docs page and a README row; each lab's declared checkpoints are
 * exactly the ones its code calls (read from its source).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { labOptions } from '../src/lab.js';
import { registry } from './registry.js';

const LABS = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(LABS);
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const folders = fs.readdirSync(LABS, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);

/**
 * the checkpoint names in the lab's own code: each string literal in the first argument of a
 * ctx.checkpoint(…) call, but for the ones it is compared with (`x === 'stale' ? 'a' : 'b'` names a and b),
 * and of each replay-gate call `gate(…)` in its child scripts (src/replay-gate.ts: a ctx.checkpoint of the parent)
 */
function checkpointsCalled(lab: string): string[] {
  const dir = path.join(LABS, lab);
  const names: string[] = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    const source = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const [, args = ''] of source.matchAll(/\b(?:ctx\.checkpoint|gate|childCheckpoint)\(([^,)]*)/g)) names.push(...[...args.matchAll(/([=!]==\s*)?'([^']*)'/g)].flatMap(([, compared, name]) => (compared || name === undefined ? [] : [name])));
  }
  return names;
}

describe('the registry', () => {
  it('has one entry per lab folder, named as the folder, in the same shape', () => {
    expect(registry.map((m) => m.name).sort()).toEqual([...folders].sort());
    for (const lab of folders) for (const file of ['meta.ts', 'names.ts', 'lab.ts']) expect(fs.existsSync(path.join(LABS, lab, file)), `${lab}/${file}`).toBe(true);
  });

  it.each(registry.map((m) => [m.name, m] as const))('%s has its docs page and its README row', (name) => {
    expect(fs.existsSync(path.join(ROOT, 'docs', 'labs', `${name}.md`)), `docs/labs/${name}.md`).toBe(true);
    expect(readme).toContain(`| \`${name}\` |`);
  });

  it.each(registry.map((m) => [m.name, m] as const))('%s declares exactly the checkpoints its code calls', (name, meta) => {
    const called = checkpointsCalled(name);
    expect(new Set(called).size, `a checkpoint name used twice in ${name}`).toBe(called.length);
    expect([...meta.checkpoints].sort()).toEqual([...called].sort());
  });

  it.each(registry.map((m) => [m.name, m] as const))('%s parses its own defaults', (_name, meta) => {
    expect(() => labOptions(meta)).not.toThrow();
    expect(meta.floorMs).toBeGreaterThanOrEqual(0);
  });
});
