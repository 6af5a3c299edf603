import { describe, expect, it } from 'vitest';
import type { LabReport, SessionInfo } from '../report/lab-report.js';
import type { Config } from '../core/config.js';
import { capabilities } from '../broker/capabilities.js';
import { check, evaluate } from '../report/checks.js';
import { jsonDocument } from '../report/json.js';
import { checkHtmlTarget, indexPage, labPage } from './html.js';
import os from 'node:os';
import { must } from '../core/must.js';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const session: SessionInfo = {
  broker: { product: 'RabbitMQ', version: '3.10.8' },
  postgres: '15.18',
  capabilities: capabilities('3.10.8'),
};
const config = {
  amqpUrl: 'amqp://app:secret@h:5772/lab',
  pgUrl: 'postgres://app:secret@h/lab',
  mgmtUrl: 'http://admin:secret@h:15772',
  namespace: 'ns',
} as Config;
const report = (over: Partial<LabReport> = {}): LabReport => ({
  lab: 'crashy',
  title: 'a <crash>',
  status: 'failed',
  lines: ['crashy: a=1'],
  checks: [evaluate(check('a', 1, 1)), evaluate(check('b', 2, 3))],
  facts: {},
  timings: { setupMs: 10, runMs: 1000, totalMs: 1010 },
  window: { start: at(0), end: at(1000) },
  events: [
    { source: 'producer', fields: { timestamp: at(10), messageId: 'm1', status: 'confirmed' } },
    {
      source: 'consumer',
      process: 'consumer-run1',
      fields: { timestamp: at(300), messageId: 'm1', status: 'received' },
    },
    {
      source: 'exit',
      process: 'consumer-run1',
      fields: { timestamp: at(400), status: 'exited', exitCode: '137', signal: 'SIGKILL' },
    },
    { source: 'checkpoint', fields: { timestamp: at(450), checkpoint: 'after-crash', status: 'waiting' } },
  ],
  depths: {
    intervalMs: 250,
    method: { ready: 'r', messages: 'm' },
    queues: ['ns.q'],
    samples: [
      { timestamp: at(0), ready: [1], messages: [null] },
      { timestamp: at(500), ready: [1] },
      { timestamp: at(900), ready: [0], messages: [1] },
    ],
    missed: 0,
  },
  ...over,
});

describe('--html page', () => {
  const doc = jsonDocument(
    session,
    [report(), report({ lab: 'ok', status: 'passed', checks: [evaluate(check('a', 1, 1))] })],
    config,
  );
  const lab = must(doc.labs[0], 'the first lab');
  const html = labPage(doc, lab);

  it('is drawn from the --json document: one mark per event, one lane per process, the crash, the depths', () => {
    expect(html.match(/<g class="ev /g)).toHaveLength(lab.events.length);
    expect([...html.matchAll(/<g class="lane" data-lane="([^"]+)"/g)].map((m) => m[1])).toEqual([
      'producer',
      'consumer-run1',
      'checkpoint',
    ]);
    expect(html).toContain('✖ crash: consumer-run1 exit 137');
    expect(html.match(/<path class="depth" data-kind="(ready|messages)" data-queue="ns.q"/g)).toHaveLength(2);
    expect(html).toContain('ns.q (peak 1 ready, 1 in all)');
    expect(html).toMatch(
      /<title>\+300 ms\nsource=consumer\nprocess=consumer-run1\ntimestamp=[^\n]+\nmessageId=m1\nstatus=received<\/title>/,
    );
  });

  it('labels a redelivery wait in whole milliseconds, as the checks print it, also past a second', () => {
    const received = (ms: number) => ({
      source: 'consumer',
      fields: { timestamp: at(ms), messageId: 'm1', status: 'received' },
    });
    const events = [received(0), received(1440), received(4000)];
    const one = jsonDocument(session, [report({ events, window: { start: at(0), end: at(5000) } })], config);
    const page = labPage(one, must(one.labs[0], 'the lab'));
    const waits = [...page.matchAll(/<text class="wait"[^>]*>([^<]+)</g)].map((m) => m[1]);
    // the first span is too short for the message's name at the timeline's 16 px: its short label
    expect(waits).toEqual(['1440 ms delivery → delivery', 'm1: 2560 ms delivery → delivery']);
  });

  it('shows PASS and FAIL per check in words, escapes text, and loads nothing from the network', () => {
    expect(html).toContain('data-verdict="FAIL"');
    expect(html).toMatch(/<tr class="fail" data-check="b">.*✘ FAIL/);
    expect(html).toContain('a &#60;crash&#62;');
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    expect(html).not.toContain('secret');
    expect(html).toContain('@media print');
  });

  it('indexes `mqlab all` with each lab’s verdict and a link to its page', () => {
    const index = indexPage(doc, (lab) => `${lab}.html`);
    expect(index).toMatch(/<tr class="fail" data-lab="crashy">.*href="crashy.html"/);
    expect(index).toMatch(/<tr class="pass" data-lab="ok">/);
    expect(index).toContain('1 failed');
  });
});

describe('--html target', () => {
  it('a lab writes a file, `all` a directory: the other way round is a usage error before anything runs', () => {
    expect(() => checkHtmlTarget(os.tmpdir(), false)).toThrow(/is a directory; one lab writes one file/);
    expect(() => checkHtmlTarget(os.tmpdir(), true)).not.toThrow();
    expect(() => checkHtmlTarget(`${os.tmpdir()}/mqlab-html-${process.pid}-new.html`, false)).not.toThrow();
  });
});
