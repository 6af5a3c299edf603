import { describe, expect, it } from 'vitest';
import type { LabReport } from './lab-report.js';
import { evaluate, check, skipCheck } from './checks.js';
import { Chalk } from 'chalk';
import { exitCodeOf, palette, renderLab, renderSummary, useColour } from './text.js';

const report = (over: Partial<LabReport> = {}): LabReport => ({
  lab: 'retry',
  title: 'limited delayed retry',
  status: 'passed',
  lines: ['retry: healthyAttempts=1'],
  checks: [evaluate(check('healthyAttempts', 1, 1))],
  facts: {},
  timings: { setupMs: 10, runMs: 1000, totalMs: 1010 },
  events: [],
  ...over,
});

describe('text output', () => {
  it('prints the summary line, the checks, then RESULT', () => {
    expect(renderLab(report(), false)).toEqual([
      'retry: healthyAttempts=1',
      'PASS healthyAttempts: 1',
      'RESULT: all assertions passed',
    ]);
  });

  it('still prints the observed summary line when a check fails', () => {
    const r = report({
      status: 'failed',
      lines: ['retry: healthyAttempts=2'],
      checks: [evaluate(check('healthyAttempts', 1, 2))],
    });
    expect(renderLab(r, false)).toEqual([
      'retry: healthyAttempts=2',
      'FAIL healthyAttempts: expected=1 actual=2',
      'RESULT: 1 assertion(s) FAILED',
    ]);
    expect(exitCodeOf([r])).toBe(1);
  });

  it('says SKIP with the reason, and a lab that broke off fails', () => {
    expect(renderLab(report({ status: 'skipped', skipped: 'needs RabbitMQ 4.3', checks: [] }), false)).toContain(
      'SKIP retry: needs RabbitMQ 4.3',
    );
    const broke = report({ status: 'error', error: 'timed out after 5.0 s waiting for x', checks: [] });
    expect(renderLab(broke, false).join('\n')).toMatch(/FAIL retry: the experiment did not complete: timed out/);
    expect(exitCodeOf([report(), broke])).toBe(1);
    expect(exitCodeOf([report(), report({ status: 'skipped' })])).toBe(0);
  });

  it('prints a check the run could not observe as SKIP with its reason: neither a pass nor a failure', () => {
    const skipped = evaluate(skipCheck('sourceAfter', 'messages=0', 'statistics refresh every 5 s'));
    expect(skipped.pass).toBe(true);
    expect(renderLab(report({ checks: [evaluate(check('a', 1, 1)), skipped] }), false)).toEqual([
      'retry: healthyAttempts=1',
      'PASS a: 1',
      'SKIP sourceAfter: statistics refresh every 5 s',
      'RESULT: all assertions passed',
    ]);
    expect(renderSummary([report({ checks: [evaluate(check('a', 1, 1)), skipped] })], false, 1010)[1]).toContain('1/2');
  });

  it('summarises `mqlab all` as a table', () => {
    const rows = renderSummary(
      [report(), report({ lab: 'hold', status: 'failed', checks: [evaluate(check('a', 1, 2))] })],
      false,
      1540,
    );
    expect(rows[1]).toMatch(/^retry\s+PASSED\s+1\/1\s+1\.01 s$/);
    expect(rows[2]).toMatch(/^hold\s+FAILED\s+0\/1/);
    expect(rows.at(-1)).toBe('ALL: 1 of 2 lab(s) FAILED in 1.5 s');
  });

  it('counts a skipped lab as skipped, not passed', () => {
    const rows = renderSummary(
      [
        report(),
        report({
          lab: 'delayed-retry',
          status: 'skipped',
          checks: [],
          skipped: 'needs RabbitMQ 4.3 (this broker: 3.10.8)',
        }),
      ],
      false,
      62_040,
    );
    expect(rows[2]).toMatch(/^delayed-retry\s+SKIPPED\s+0\/0/);
    expect(rows.at(-1)).toBe('ALL: 2 lab(s) in 62.0 s, none failed, 1 skipped');
  });

  it('uses colour only on a TTY without NO_COLOR', () => {
    expect(useColour({ isTTY: true }, {})).toBe(true);
    expect(useColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColour({ isTTY: false }, {})).toBe(false);
    expect(renderLab(report(), true)[1]).toContain('\u001b[');
  });

  it('styles text as chalk does at level 1, byte for byte, and not at all without colour', () => {
    const chalk = new Chalk({ level: 1 });
    const ours = palette(true);
    const texts = ['PASS x: 1', '', 'two\nlines\r\nthree', `in ${chalk.green('green')} and ${chalk.dim('dim')} text`];
    for (const [name, theirs] of [
      ['pass', chalk.green],
      ['fail', chalk.red],
      ['skip', chalk.yellow],
      ['dim', chalk.dim],
      ['bold', chalk.bold],
    ] as const)
      for (const t of texts) expect(ours[name](t)).toBe(theirs(t));
    for (const t of texts) expect(palette(false).fail(t)).toBe(t);
  });
});
