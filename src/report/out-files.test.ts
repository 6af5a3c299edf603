import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LabReport } from './lab-report.js';
import { evaluate } from './checks.js';
import { keepEvents, labOutDir, writeAssertOut } from './out-files.js';

const report = (checks: LabReport['checks'], status: LabReport['status']): LabReport => ({
  lab: 'demo',
  title: 'demo',
  status,
  lines: ['demo: a=1'],
  checks,
  facts: {},
  events: [],
  timings: { setupMs: 0, runMs: 0, totalMs: 0 },
});

describe('--out files', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-out-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('one lab writes into DIR, several labs into DIR/<lab>/', () => {
    expect(labOutDir(undefined, 'demo', false)).toBeUndefined();
    expect(labOutDir(tmp, 'demo', false)).toBe(tmp);
    const sub = labOutDir(tmp, 'demo', true)!;
    expect(sub).toBe(path.join(tmp, 'demo'));
    expect(fs.statSync(sub).isDirectory()).toBe(true);
  });

  it('assert.out.txt holds the PASS/FAIL lines and RESULT, not the summary line', () => {
    writeAssertOut(tmp, report([evaluate({ name: 'rows', expected: 3, actual: 3 })], 'passed'));
    expect(fs.readFileSync(path.join(tmp, 'assert.out.txt'), 'utf8')).toBe(
      'PASS rows: 3\nRESULT: all assertions passed\n',
    );
    writeAssertOut(tmp, report([evaluate({ name: 'rows', expected: 3, actual: 4 })], 'failed'));
    expect(fs.readFileSync(path.join(tmp, 'assert.out.txt'), 'utf8')).toBe(
      'FAIL rows: expected=3 actual=4\nRESULT: 1 assertion(s) FAILED\n',
    );
  });

  it('keeps an in-process producer as <name>.out.txt, one event line each', () => {
    keepEvents(tmp, 'producer', [{ source: 'producer', fields: { timestamp: 't', status: 'done' } }]);
    expect(fs.readFileSync(path.join(tmp, 'producer.out.txt'), 'utf8')).toBe('[producer] timestamp=t status=done\n');
    keepEvents(undefined, 'ignored', []);
  });
});
