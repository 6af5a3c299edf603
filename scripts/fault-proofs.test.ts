import { describe, expect, it } from 'vitest';
import { assertedFails, gaps, labOfFaultTest, report } from './fault-proofs.js';

describe('labOfFaultTest', () => {
  it('takes the lab from <lab>.faults.int.test.ts', () => {
    expect(labOfFaultTest('retry.faults.int.test.ts')).toBe('retry');
    expect(labOfFaultTest('consumer-crash.faults.int.test.ts')).toBe('consumer-crash');
    expect(labOfFaultTest('quorum-failover.faults.cluster.int.test.ts')).toBe('quorum-failover');
  });
  it('ignores every other file', () => {
    expect(labOfFaultTest('retry.int.test.ts')).toBeNull();
    expect(labOfFaultTest('faults.int.test.ts')).toBeNull();
    expect(labOfFaultTest('retry.faults.test.ts')).toBeNull();
  });
});

describe('assertedFails', () => {
  it("reads every 'FAIL <check>:' literal, in any quotes, names with dots and dashes", () => {
    const src = `fails: ['FAIL crashExitCode:', "FAIL consumer-run2.exitCode:", \`FAIL business_rows:\`],\n  x: 'FAIL crashExitCode:'`;
    expect([...assertedFails(src)].sort()).toEqual(['business_rows', 'consumer-run2.exitCode', 'crashExitCode']);
  });
  it('ignores FAIL text that is not the assertion form', () => {
    const src = `// FAIL healthyAttempts: in a comment\n'FAIL healthyAttempts: expected=1'\n'FAIL  spaced:'\n"FAIL noColon"\n'RESULT: 2 assertion(s) FAILED'`;
    expect([...assertedFails(src)]).toEqual([]);
  });
});

describe('gaps and report', () => {
  const retry = gaps({ lab: 'retry', checks: ['a', 'b', 'c'], proven: new Set(['a', 'c']) });
  it('lists the checks no fault test shows failing, and asserted names that are no check', () => {
    expect(retry).toEqual({ lab: 'retry', unproven: ['b'], unknown: [] });
    expect(gaps({ lab: 'hold', checks: ['x'], proven: new Set(['x', 'gone']) })).toEqual({ lab: 'hold', unproven: [], unknown: ['gone'] });
  });
  it('fails when anything is unproven, passes when nothing is', () => {
    const bad = report([retry], () => 3);
    expect(bad.ok).toBe(false);
    expect(bad.lines).toEqual(['retry: 2 of 3 checks shown failing; unproven: b', 'PROOFS: 1 check(s) no fault test shows failing, 0 asserted name(s) that are not checks']);
    const good = report([gaps({ lab: 'retry', checks: ['a'], proven: new Set(['a']) })], () => 1);
    expect(good).toEqual({ ok: true, lines: ['retry: 1 of 1 checks shown failing', 'PROOFS: every check of every lab is shown failing by a fault test'] });
  });
});
