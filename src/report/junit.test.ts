import { beforeAll, describe, expect, it } from 'vitest';
import type { LabReport } from './lab-report.js';
import { check, evaluate } from './checks.js';
import { junitXml, type JunitLab } from './junit.js';
import { xmlAttr, xmlChars, xmlText } from './xml.js';
import { ensureXmllint, find, junitXsdErrors, parseXml } from '../../test/report-validate.js';

const at = new Date('2026-11-30T10:00:00.000Z');
const lab = (over: Partial<LabReport> = {}): JunitLab => ({
  startedAt: at,
  report: {
    lab: 'retry',
    title: 'limited delayed retry',
    status: 'passed',
    lines: ['retry: healthyAttempts=1'],
    checks: [evaluate(check('healthyAttempts', 1, 1))],
    facts: {},
    events: [],
    timings: { setupMs: 100, runMs: 1000, totalMs: 1100 },
    ...over,
  },
});

// apt may have to wait for another install's lock
beforeAll(() => ensureXmllint(), 600_000);

/** parsed by a strict XML parser and accepted by the Jenkins JUnit XSD, or the test fails */
function valid(xml: string) {
  expect(junitXsdErrors(xml)).toBe('');
  return parseXml(xml);
}

describe('xml writer', () => {
  it('drops what XML 1.0 forbids, whole ANSI sequences included, and keeps newlines in text', () => {
    expect(xmlChars('a\u001b[31mred\u001b[0m\u0007\u0000b\uFFFE')).toBe('aredb');
    expect(xmlText('x < y & z\nnext')).toBe('x &lt; y &amp; z\nnext');
    expect(xmlAttr('say "hi"\nthen\tgo')).toBe('say &quot;hi&quot;&#10;then&#9;go');
  });

  it('the validators do fail: a raw ESC is not well-formed, a missing required attribute not valid', () => {
    expect(() => parseXml('<testsuites><testsuite name="\u001b[31m"/></testsuites>')).toThrow();
    expect(junitXsdErrors('<testsuites><testsuite name="x" tests="1"/></testsuites>')).toMatch(/failures|errors/);
  });
});

describe('junit', () => {
  it('one testcase per check with a time; failures carry expected and actual; the lab lines in system-out', () => {
    const colourful = '\u001b[31m2\u001b[0m\u0007 then\nmore';
    const xml = junitXml([
      lab({ status: 'failed', checks: [evaluate(check('a', 1, 1)), evaluate(check('b<&>', '1', colourful))] }),
    ]);
    const doc = valid(xml);
    const [suite] = find(doc, 'testsuite');
    expect(suite?.attrs).toMatchObject({
      name: 'retry',
      tests: '2',
      failures: '1',
      errors: '0',
      skipped: '0',
      time: '1.100',
      timestamp: '2026-11-30T10:00:00',
    });
    const cases = find(doc, 'testcase');
    expect(cases.map((c) => [c.attrs.name, c.attrs.time])).toEqual([
      ['a', '0.500'],
      ['b<&>', '0.500'],
    ]);
    const [failure] = find(doc, 'failure');
    expect(failure?.attrs.message).toBe('expected=1 actual=2 then\nmore');
    expect(failure?.text).toBe('expected: 1\nactual:   2 then\nmore\n');
    expect(find(doc, 'system-out')[0]?.text).toBe(
      'retry: healthyAttempts=1\nPASS a: 1\nFAIL b<&>: expected=1 actual=2 then\nmore\nRESULT: 1 assertion(s) FAILED\n',
    );
    expect(doc.attrs).toMatchObject({ name: 'mqlab', tests: '2', failures: '1', errors: '0', time: '1.100' });
  });

  it('a skipped lab is <skipped message=…>', () => {
    const doc = valid(
      junitXml([lab({ status: 'skipped', skipped: 'needs RabbitMQ 4.3 (this is 3.10.8)', checks: [] })]),
    );
    expect(find(doc, 'skipped')[0]?.attrs.message).toBe('needs RabbitMQ 4.3 (this is 3.10.8)');
    expect(find(doc, 'testsuite')[0]?.attrs.skipped).toBe('1');
  });

  it('a lab that did not complete is an <error>, whether its error is a message or {kind, service, message}', () => {
    const broke = lab({ status: 'error', error: 'timed out after 5.0 s waiting for x', checks: [] });
    const env = lab({ lab: 'hold', status: 'error', checks: [] });
    Object.assign(env.report, {
      outcome: 'error',
      error: { kind: 'environment', service: 'RabbitMQ', message: 'connection closed (320)' },
    });
    const doc = valid(junitXml([broke, env]));
    expect(find(doc, 'failure')).toEqual([]);
    expect(find(doc, 'error').map((e) => e.attrs)).toEqual([
      { type: 'error', message: 'timed out after 5.0 s waiting for x' },
      { type: 'environment', message: 'RabbitMQ: connection closed (320)' },
    ]);
    expect(doc.attrs).toMatchObject({ errors: '2', failures: '0' });
  });

  it('a run that ended early: the finished labs, an <error> for the running one, the rest skipped', () => {
    const end = {
      kind: 'interrupted' as const,
      message: 'interrupted (SIGINT/SIGTERM)',
      lab: 'hold',
      notRun: ['replay'],
      at,
    };
    const doc = valid(junitXml([lab()], end));
    expect(find(doc, 'testsuite').map((s) => s.attrs.name)).toEqual(['retry', 'hold', 'replay']);
    expect(find(doc, 'error')[0]?.attrs).toEqual({ type: 'interrupted', message: 'interrupted (SIGINT/SIGTERM)' });
    expect(find(doc, 'skipped')[0]?.attrs.message).toBe('not run: the run ended early (interrupted)');
    expect(doc.attrs).toMatchObject({ tests: '3', errors: '1' });
    // before any lab is known (a usage error), the suite is mqlab's own
    const usage = valid(junitXml([], { kind: 'usage', message: "unknown option '--bogus'", at }));
    expect(find(usage, 'testsuite')[0]?.attrs.name).toBe('mqlab');
  });
});
