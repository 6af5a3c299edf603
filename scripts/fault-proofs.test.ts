import { describe, expect, it } from 'vitest';
import { gaps, report } from './fault-proofs.js';

const lab = (checks: string[], faults: Record<string, string[]>) => ({
  name: 'retry',
  checks,
  faults: Object.fromEntries(Object.entries(faults).map(([name, fails]) => [name, { breaks: name, fails }])),
});

describe('gaps', () => {
  it('lists the checks no variant fails, and variants that fail nothing or an undeclared check', () => {
    expect(gaps(lab(['a', 'b', 'c'], { x: ['a'], y: ['c', 'gone'], z: [] }), true)).toEqual({
      lab: 'retry',
      checks: 3,
      unproven: ['b'],
      badVariants: ['y', 'z'],
      noFaultTest: false,
    });
  });
  it('passes when every check is failed by a variant and a fault test exists', () => {
    const ok = report([gaps(lab(['a', 'b'], { x: ['a', 'b'] }), true)]);
    expect(ok).toEqual({
      ok: true,
      lines: [
        'retry: 2 of 2 checks failed by a declared variant',
        'PROOFS: every check of every lab is failed by a declared variant that a fault test runs',
      ],
    });
    const bad = report([gaps(lab(['a', 'b'], { x: ['a'] }), false)]);
    expect(bad.ok).toBe(false);
    expect(bad.lines[0]).toBe(
      'retry: 1 of 2 checks failed by a declared variant; unproven: b; no labs/retry/retry.faults.int.test.ts',
    );
  });
});
