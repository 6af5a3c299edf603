import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../labs/registry.js';
import { checkpointsListed, faultTestFile, syncPage, variantsSection } from './lab-pages.js';

const root = path.resolve(import.meta.dirname, '..');
const page = (lab: string) => fs.readFileSync(path.join(root, 'docs', 'labs', `${lab}.md`), 'utf8');

describe('each lab page is in step with the lab', () => {
  it('its broken variants are its catalogue’s (labs/<lab>/faults.ts), each test file exists', () => {
    const behind = registry.filter((m) => {
      const text = page(m.name);
      return syncPage(text, variantsSection(m, faultTestFile(root, m.name))) !== text;
    });
    expect(
      behind.map((m) => `docs/labs/${m.name}.md`),
      'out of step with labs/<lab>/faults.ts: run `npm run docs`',
    ).toEqual([]);
    for (const m of registry) expect(fs.existsSync(path.join(root, faultTestFile(root, m.name))), m.name).toBe(true);
  });

  it('its Checkpoints section lists the checkpoints the lab declares, in their order', () => {
    for (const m of registry) expect(checkpointsListed(page(m.name)), m.name).toEqual(Object.keys(m.checkpoints));
  });

  it('the section goes after Checkpoints, and is replaced in place the next time', () => {
    const meta = { name: 'demo', faults: { 'skip-it': { breaks: 'skips | it', fails: ['a', 'b'] } } };
    const first = syncPage(
      '# demo\n\n## Checkpoints\n\n- `one` — x\n\n## Try this\n\nrun it\n',
      variantsSection(meta, 't.ts'),
    );
    expect(first).toMatch(/## Checkpoints\n\n- `one` — x\n\n## Broken variants \(tests only\)\n/);
    expect(first).toContain('| `skip-it` | skips \\| it | `a`, `b` |');
    expect(first).toMatch(/end of the generated section -->\n\n## Try this\n\nrun it\n$/);
    const changed = { ...meta, faults: { other: { breaks: 'y', fails: ['a'] } } };
    const second = syncPage(first, variantsSection(changed, 't.ts'));
    expect(second).not.toContain('skip-it');
    expect(second.match(/## Broken variants/g)).toHaveLength(1);
    expect(syncPage(second, variantsSection(changed, 't.ts'))).toBe(second);
  });
});
