import { describe, expect, it } from 'vitest';
import { judgePrediction, parsePrediction, predictionLine } from './prediction.js';

const report = {
  status: 'passed' as const,
  checks: [
    { name: 'transientAttempts', expected: [1, 2, 3], actual: [1, 2, 3], pass: true },
    { name: 'businessRows', expected: 2, actual: 2, pass: true },
    { name: 'shortestRetryGapMs', expected: 500, actual: 503, pass: true, compare: 'atLeast' as const },
  ],
  facts: { poisonDeadLettered: true },
};

describe('--predict', () => {
  it('name=value pairs (a value may hold commas), or PASS/FAIL', () => {
    expect(parsePrediction('transientAttempts=1,2,3 businessRows=2')).toEqual([
      { name: 'transientAttempts', said: '1,2,3' },
      { name: 'businessRows', said: '2' },
    ]);
    expect(parsePrediction('transientAttempts=1, 2, 3; PASS')).toEqual([
      { name: 'transientAttempts', said: '1, 2, 3' },
      { name: 'verdict', said: 'PASS' },
    ]);
    expect(parsePrediction('shortestRetryGapMs>=500 x<=2')).toEqual([
      { name: 'shortestRetryGapMs', said: '500', op: '>=' },
      { name: 'x', said: '2', op: '<=' },
    ]);
    expect(() => parsePrediction('three')).toThrow(/name=value/);
    expect(() => parsePrediction('gap>=soon')).toThrow(/name>=n/);
    expect(() => parsePrediction('  ')).toThrow(/empty/);
  });

  it('a bound is judged as a bound: 503 is >=500, not =500', () => {
    const judged = judgePrediction(
      parsePrediction('shortestRetryGapMs>=500 shortestRetryGapMs=500 shortestRetryGapMs<=400'),
      report,
    );
    expect(judged.map((j) => j.right)).toEqual([true, false, false]);
    expect(predictionLine(judged.slice(0, 1))).toBe('prediction: shortestRetryGapMs>=500 ✓');
  });

  it('judged by the check of that name, else the fact, else nobody', () => {
    const judged = judgePrediction(
      parsePrediction('transientAttempts=1, 2, 3 businessRows=3 poisonDeadLettered=true x=1 FAIL'),
      report,
    );
    expect(judged.map((j) => [j.name, j.actual, j.right])).toEqual([
      ['transientAttempts', '1,2,3', true],
      ['businessRows', '2', false],
      ['poisonDeadLettered', 'true', true],
      ['x', null, null],
      ['verdict', 'PASS', false],
    ]);
    expect(predictionLine(judged.slice(0, 2))).toBe(
      'prediction: transientAttempts=1, 2, 3 ✓; businessRows=3 ✗ (actual 2)',
    );
  });
});
