import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { GROUPS } from '../../src/check/groups/index.js';
import { REFERENCE_CONSUMERS } from './catalogue.js';

describe('the reference consumers of mqlab check', () => {
  it('fail every check some group prints, each by a broken one (a check that cannot fail is a defect)', () => {
    const failed = new Set(REFERENCE_CONSUMERS.flatMap((c) => c.fails));
    const printed = Object.values(GROUPS).flatMap((g) => g.exposes.map((a) => `${g.name}.${a}`));
    expect(printed.filter((c) => !failed.has(c))).toEqual([]);
    expect([...failed].filter((c) => !printed.includes(c))).toEqual([]);
  });
  it('each broken one fails with one anomaly only, in both languages', () => {
    for (const c of REFERENCE_CONSUMERS) {
      expect(fs.existsSync(c.file)).toBe(true);
      expect(new Set(c.fails.map((f) => f.split('.')[1])).size).toBeLessThanOrEqual(1);
    }
    expect(REFERENCE_CONSUMERS.filter((c) => c.language === 'python')).toHaveLength(7);
    expect(REFERENCE_CONSUMERS.filter((c) => c.language === 'typescript')).toHaveLength(7);
  });
});
