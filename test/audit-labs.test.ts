/** The labs the audit's findings point to are labs of the registry (the engine names them as strings only). */
import { describe, expect, it } from 'vitest';
import { registry } from '../labs/registry.js';
import { SEE } from '../src/audit/labs.js';
import { CHECKS } from '../src/audit/checks.js';

describe('audit findings name existing labs', () => {
  it('every lab in src/audit/labs.ts is in the registry, and every check names one of them', () => {
    const names = registry.map((l) => l.name);
    expect(Object.values(SEE).filter((lab) => !names.includes(lab))).toEqual([]);
    // a check without a lab (an import or upgrade blocker no lab shows) points to docs/audit.md#<check>
    expect(
      CHECKS.filter((c) => c.lab !== null && !Object.values<string>(SEE).includes(c.lab)).map((c) => c.id),
    ).toEqual([]);
    expect(new Set(CHECKS.map((c) => c.id)).size).toBe(CHECKS.length);
  });
});

describe('docs/audit.md', () => {
  it('lists every check with its severity and lab, and has a section for each (docs/audit.md#<check>)', async () => {
    const { readFileSync } = await import('node:fs');
    const page = readFileSync(new URL('../docs/audit.md', import.meta.url), 'utf8');
    const missing = CHECKS.filter(
      (c) =>
        !new RegExp(`^\\| \`${c.id}\` \\| ${c.severity} \\|.*\\| ${c.lab ? `\`${c.lab}\`` : '–'} \\|`, 'm').test(
          page,
        ) || !new RegExp(`^### .*\`${c.id}\``, 'm').test(page),
    ).map((c) => c.id);
    expect(missing).toEqual([]);
  });
});
