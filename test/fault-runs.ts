/**
 * Runs of a lab's deliberately broken variants (MQLAB_FAULT, src/fault.ts) for the
 * `<lab>.faults.int.test.ts` files. Each file passes its own namespace; each expected line is the
 * literal `FAIL <check>:` that scripts/unproven-checks.ts looks for.
 */
import { expect } from 'vitest';
import { mqlab } from './helpers.js';

/** run `lab` in namespace `ns` with `faults`; it must exit 1 and print every line of `fails` */
export async function expectFaultsFail(lab: string, ns: string, faults: string[], fails: string[], options: string[] = []) {
  const r = await mqlab([lab, '--namespace', ns, ...options], { MQLAB_FAULT: faults.map((f) => `${lab}:${f}`).join(',') });
  expect(r.code, r.stdout + r.stderr).toBe(1);
  for (const line of fails) expect(r.stdout).toContain(line);
  return r;
}
