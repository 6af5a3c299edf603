import { describe, expect, it } from 'vitest';
import { jobConfig, jobNamespace, LabOutput, longestFirst } from './jobs.js';
import { loadConfig } from '../core/config.js';
import { UsageError } from '../core/errors.js';

describe('--jobs', () => {
  it('gives each lab its own namespace, under --namespace when given', () => {
    expect([0, 1, 11].map((i) => jobNamespace('', i))).toEqual(['j1', 'j2', 'j12']);
    expect(jobNamespace('ws3', 0)).toBe('ws3_j1');
    expect(jobConfig(loadConfig({ namespace: 'ci' }, {}), 4).namespace).toBe('ci_j5');
  });

  it('refuses a --namespace too long to take the suffix, saying which name it would make', () => {
    const config = loadConfig({ namespace: 'a'.repeat(22) }, {});
    expect(() => jobConfig(config, 9)).toThrow(UsageError);
    expect(() => jobConfig(config, 9)).toThrow(`'${'a'.repeat(22)}_j10'`);
  });

  it('starts the longest floors first, ties in registry order', () => {
    expect(
      longestFirst([{ floorMs: 0 }, { floorMs: 3000 }, { floorMs: 1000 }, { floorMs: 3000 }], (e) => e.floorMs),
    ).toEqual([1, 3, 2, 0]);
  });

  it('keeps a lab’s stderr lines until its turn; one lab at a time prints at once', () => {
    const out: string[] = [];
    const kept = new LabOutput(2, true, (l) => out.push(l));
    kept.stderrOf(1)('b1');
    kept.stderrOf(0)('a1');
    expect(out).toEqual([]);
    kept.flush(0);
    kept.stderrOf(0)('a2');
    kept.flushAll();
    expect(out).toEqual(['a1', 'a2', 'b1']);
    const direct: string[] = [];
    new LabOutput(1, false, (l) => direct.push(l)).stderrOf(0)('now');
    expect(direct).toEqual(['now']);
  });
});
