import { describe, expect, it } from 'vitest';
import { unchanged, withVariants } from './variant.js';

const asking = (...names: string[]) => ({ fault: (name: string) => names.includes(name) });
const correct = { route: 'delay', next: (a: number) => a + 1, wrap: unchanged<(n: number) => number> };
const variants = {
  'skip-delay': { route: 'work' },
  'skip-attempt': { next: (a: number) => a + 2 },
  'also-route': { route: 'elsewhere' },
  'route-suffix': (p: typeof correct) => ({ route: `${p.route}-x` }),
};

describe('withVariants', () => {
  it('is the correct policy itself when no variant is asked for', () => {
    expect(withVariants(asking(), correct, variants)).toBe(correct);
  });
  it('replaces only the steps of the asked-for variants', () => {
    const p = withVariants(asking('skip-attempt'), correct, variants);
    expect(p.route).toBe('delay');
    expect(p.next(1)).toBe(3);
    expect(p.wrap((n) => n * 2)(4)).toBe(8);
  });
  it('applies two variants of different steps together, later ones winning on the same step', () => {
    const p = withVariants(asking('skip-delay', 'skip-attempt'), correct, variants);
    expect([p.route, p.next(1)]).toEqual(['work', 3]);
    expect(withVariants(asking('skip-delay', 'also-route'), correct, variants).route).toBe('elsewhere');
  });
  it('gives a variant written as a function the policy as applied so far', () => {
    expect(withVariants(asking('skip-delay', 'route-suffix'), correct, variants).route).toBe('work-x');
  });
});
