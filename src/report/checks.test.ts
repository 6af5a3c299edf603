import { describe, expect, it } from 'vitest';
import {
  check,
  checkAtLeast,
  checkAtMost,
  checkLine,
  evaluate,
  formatValue,
  javaList,
  resultLine,
  summaryLine,
} from './checks.js';

describe('checks', () => {
  it('prints PASS lines as name: value', () => {
    expect(checkLine(evaluate(check('poisonAttempts', [1, 2, 3], [1, 2, 3])))).toBe('PASS poisonAttempts: 1,2,3');
    expect(checkLine(evaluate(check('crashExitCode', 137, 137)))).toBe('PASS crashExitCode: 137');
    expect(checkLine(evaluate(check('poisonDeadLettered', true, true)))).toBe('PASS poisonDeadLettered: true');
  });

  it('prints FAIL lines with expected and actual', () => {
    const r = evaluate(check('business_rows', 3, 2));
    expect(r.pass).toBe(false);
    expect(checkLine(r)).toBe('FAIL business_rows: expected=3 actual=2');
  });

  it('does not pass a value of another type that prints the same', () => {
    expect(evaluate(check('n', 1, '1')).pass).toBe(false);
    expect(evaluate(check('a', [1, 2], [1, 2, 3])).pass).toBe(false);
  });

  it('evaluates bounds', () => {
    expect(evaluate(checkAtLeast('ratio', 20, 35)).pass).toBe(true);
    const low = evaluate(checkAtLeast('ratio', 20, 3));
    expect(checkLine(low)).toBe('FAIL ratio: expected=>=20 actual=3');
    expect(evaluate(checkAtMost('ms', 10, 11)).pass).toBe(false);
  });

  it('summarises as lab: key=value …', () => {
    expect(resultLine([evaluate(check('a', 1, 1))])).toBe('RESULT: all assertions passed');
    expect(resultLine([evaluate(check('a', 1, 2)), evaluate(check('b', 1, 0)), evaluate(check('c', 1, 1))])).toBe(
      'RESULT: 2 assertion(s) FAILED',
    );
  });

  it('formats lists as Java prints them on a summary line', () => {
    expect(javaList([1, 2, 3])).toBe('[1, 2, 3]');
    expect(javaList([])).toBe('[]');
    expect(formatValue(null)).toBe('null');
  });
});

describe('summaryLine', () => {
  it('prints lab: key=value with lists as 1,2', () => {
    expect(summaryLine('outbox', { relayExit: 137, effects: 'order-1:1', attempts: [1, 2], held: null })).toBe(
      'outbox: relayExit=137 effects=order-1:1 attempts=1,2 held=null',
    );
  });
});
