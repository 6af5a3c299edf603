/**
 * What a CI job reads, from real runs: the --json document against docs/report.schema.json, and the
 * --junit file through a strict XML parser and the Jenkins JUnit XSD — for a whole `mqlab all`,
 * an environment error, a usage error and an interrupted run.
 *
 * The whole `mqlab all` is the suite's one `mqlab all --jobs 4` with every report: --json, --junit
 * and --html (its pages opened in headless Chromium), with the least-privilege management account
 * (least-privilege-accounts.int.test.ts) — one run that a CI job, a teacher and an operator would each read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { CLI, ROOT, mqlab, startMqlab, useNamespace, useServices } from './helpers.js';
import { openBrowser, screenshot } from './browser.js';
import { MONITOR_ENV, ensureMonitorAccount } from './monitor-account.js';
import { ensureXmllint, find, junitXsdErrors, labErrors, parseXml, reportErrors } from './report-validate.js';
import { registry } from '../labs/registry.js';
import { parseRun, versionIn, type RunDoc } from './report.js';
import { must } from '../src/core/must.js';
import { text } from '../src/core/text.js';

const NS = useNamespace(import.meta.url).namespace; // the runs below also name it with --namespace, as a user would

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-reports-'));
const junitAt = (name: string) => path.join(tmp, `${name}.junit.xml`);
const VERSION = versionIn(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

/** the file a run left: well-formed (saxes), valid (XSD), parsed */
function junitOf(file: string) {
  expect(fs.existsSync(file), `${file} was not written`).toBe(true);
  const xml = fs.readFileSync(file, 'utf8');
  expect(junitXsdErrors(xml)).toBe('');
  return parseXml(xml);
}

beforeAll(() => ensureXmllint(), 600_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('reports a CI job reads', () => {
  useServices({ setup: () => ensureMonitorAccount() });
  /** the `mqlab all` run's document and its --html folder, for the page test after it */
  let all: { doc: RunDoc; out: string } | undefined;

  it('an environment error (exit 2) still writes the JUnit file: one <error>, the password masked', async () => {
    const file = junitAt('env');
    const r = await mqlab(['retry', '--junit', file, '--amqp-url', 'amqp://app:pw-secret@127.0.0.1:1/lab']);
    expect(r.code).toBe(2);
    const doc = junitOf(file);
    const [error] = find(doc, 'error');
    expect(error?.attrs.type).toBe('environment');
    expect(error?.attrs.message).toMatch(/^RabbitMQ at amqp:\/\/app:\*\*\*@127\.0\.0\.1:1\/lab: unreachable/);
    expect(find(doc, 'testsuite').map((s) => s.attrs.name)).toEqual(['retry']);
    expect(fs.readFileSync(file, 'utf8')).not.toContain('pw-secret');
  });

  it('a usage error after --junit was parsed (exit 2) writes it too', async () => {
    const file = junitAt('usage');
    const r = await mqlab(['retry', '--junit', file, '--no-such-flag']);
    expect(r.code).toBe(2);
    const [error] = find(junitOf(file), 'error');
    expect(error?.attrs).toMatchObject({ type: 'usage', message: "unknown option '--no-such-flag'" });
  });

  it('a broken-variant run (MQLAB_FAULT) is marked: a faults field in --json (valid against the schema), a line in the text', async () => {
    const fault = { MQLAB_FAULT: 'retry-dlq:late-publish' };
    const json = await mqlab(['retry-dlq', '--namespace', NS, '--json'], fault);
    expect(json.code, json.stderr).toBe(1);
    const doc = parseRun(json.stdout);
    expect(reportErrors(doc)).toBe('');
    expect(doc.labs[0]?.faults).toEqual(['late-publish']);
    const text = await mqlab(['retry-dlq', '--namespace', NS], fault);
    expect(text.stdout.split('\n')[1]).toBe(
      'BROKEN VARIANT retry-dlq: late-publish (MQLAB_FAULT): not the correct experiment',
    );
    // the correct experiment carries no such field
    const correct = parseRun((await mqlab(['retry-dlq', '--namespace', NS, '--json'])).stdout);
    expect(correct.labs[0]).not.toHaveProperty('faults');
  });

  it('an interrupted run (exit 130) writes it with an <error type="interrupted">', async () => {
    const file = junitAt('interrupted');
    const { child, stderrShows } = startMqlab(['dead-letter-reasons', '--step', '--namespace', NS, '--junit', file]);
    await stderrShows('── checkpoint 1: ', 60_000); // the first --step pause
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    const doc = junitOf(file);
    expect(find(doc, 'error')[0]?.attrs.type).toBe('interrupted');
    expect(find(doc, 'testsuite')[0]?.attrs.name).toBe('dead-letter-reasons');
  });

  it("a second interrupt quits at once (exit 130): the run's own file, <error> saying twice", async () => {
    const file = junitAt('quit');
    const { child, stderrShows } = startMqlab(['dead-letter-reasons', '--step', '--namespace', NS, '--junit', file]);
    await stderrShows('── checkpoint 1: ', 60_000);
    // two different signals (two SIGINTs pending at once are one), both pending before mqlab runs again:
    // sent one after the other to a running process, the first one's wake-up may take the CPU from this
    // process and the whole stop end before the second is sent (seen under load: one interrupt, not two)
    process.kill(child.pid!, 'SIGSTOP');
    child.kill('SIGINT');
    child.kill('SIGTERM');
    process.kill(child.pid!, 'SIGCONT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    // which of the two pending signals Node's threads take first is the kernel's choice (seen: either):
    // the first one's line says it is stopping, the <error> names the other
    const first = /mqlab: (SIGINT|SIGTERM) — stopping/.exec(String(r.stderr))?.[1];
    expect(first, String(r.stderr)).toBeDefined();
    const doc = junitOf(file);
    expect(find(doc, 'error')[0]?.attrs).toMatchObject({
      type: 'interrupted',
      message: `interrupted by ${first === 'SIGINT' ? 'SIGTERM' : 'SIGINT'} (twice)`,
    });
    // the run's file (it knows the lab that was running), not main's fallback from the arguments
    expect(find(doc, 'testsuite')[0]?.attrs.name).toBe('dead-letter-reasons');
  });

  it('mqlab all --json: the document and every lab match docs/report.schema.json; the JUnit matches the XSD', async () => {
    expect.hasAssertions(); // some assertions sit in loops over what the run observed
    const file = junitAt('all');
    const out = path.join(tmp, 'all');
    // the labs that stop a service are left out (--skip: SKIP entries, which the schemas must hold too);
    // four labs at once, as a CI job would run them (each lab's entry names its own namespace), with
    // the management account that may only set policies and read statistics
    const r = await mqlab(
      [
        'all',
        '--jobs',
        '4',
        '--json',
        '--namespace',
        NS,
        '--junit',
        file,
        '--html',
        out,
        '--skip',
        'db-outage,broker-restart',
      ],
      MONITOR_ENV,
      600_000,
    );
    // every lab with that account: nothing refused (and a lab this broker cannot run is a SKIP, never a pass)
    expect(r.stderr).not.toMatch(/HTTP 401|HTTP 403|not_authorised|access_refused/i);
    const doc = parseRun(r.stdout);
    const failed = doc.labs
      .filter((l) => l.status === 'failed' || l.status === 'error')
      .map(
        (l) =>
          `${l.lab}: ${
            'error' in l
              ? text(l.error)
              : l.checks
                  .filter((c) => !c.pass)
                  .map((c) => c.name)
                  .join(',')
          }`,
      );
    expect(r.code, failed.join('\n')).toBe(0);
    expect(reportErrors(doc)).toBe('');
    expect(doc.labs).toHaveLength(registry.length);
    for (const lab of doc.labs) expect(labErrors(lab), lab.lab).toBe('');
    expect(doc).toMatchObject({ schemaVersion: 2, mqlabVersion: VERSION, namespace: NS });
    // --jobs: each lab's entry says the namespace it ran in
    expect(doc.labs.map((l) => [l.lab, l.namespace])).toEqual(registry.map((l, i) => [l.name, `${NS}_j${i + 1}`]));
    expect(doc.labs.map((l) => l.lab)).toEqual(registry.map((e) => e.name));
    // the schema can fail: a document without its version does not match
    expect(reportErrors({ ...doc, schemaVersion: undefined })).toMatch(/schemaVersion/);

    const xml = junitOf(file);
    const suites = find(xml, 'testsuite');
    expect(suites.map((s) => s.attrs.name)).toEqual(doc.labs.map((l) => l.lab));
    for (const [i, s] of suites.entries()) {
      const lab = must(doc.labs[i], `the lab of testsuite ${i}`);
      const cases = find(s, 'testcase');
      expect(cases.length).toBe(lab.checks.length + (lab.status === 'skipped' ? 1 : 0));
      expect(Number(s.attrs.time) * 1000).toBeCloseTo(lab.timings.totalMs, -1);
      // what the lab printed first: its summary line, or the SKIP line of a lab this broker cannot run
      expect(find(s, 'system-out')[0]?.text.split('\n')[0]).toBe(
        lab.lines[0] ?? (lab.status === 'skipped' ? `SKIP ${lab.lab}: ${lab.skipped}` : ''),
      );
      if (lab.checks.length) expect(cases.every((c) => Number(c.attrs.time) > 0)).toBe(true);
    }
    expect(xml.attrs.tests).toBe(String(find(xml, 'testcase').length));
    all = { doc, out };
  }, 600_000);

  it('mqlab all --html DIR: an index with every lab’s verdict, linking a page per lab drawn from the same run', async () => {
    expect(all, 'the `mqlab all` run of the test above').toBeDefined();
    const { doc, out } = all!;
    const browser = await openBrowser();
    try {
      const page = await browser.context.newPage();
      await page.goto('file://' + path.join(out, 'index.html'));
      const rows = await page
        .locator('table.labs tbody tr')
        .evaluateAll((els) =>
          els.map((e) => [e.getAttribute('data-lab'), e.querySelector('.badge')?.getAttribute('data-verdict')]),
        );
      const verdict = (status: string) => (status === 'passed' ? 'PASS' : status === 'skipped' ? 'SKIP' : 'FAIL');
      expect(rows).toEqual(doc.labs.map((l) => [l.lab, verdict(l.status)]));
      await screenshot(page, 'all-index.png');
      for (const lab of doc.labs) {
        await page.goto('file://' + path.join(out, 'index.html'));
        await page.locator(`tr[data-lab="${lab.lab}"] a`).click();
        // the click starts the navigation; the page's timeline is there once it has loaded (at load average
        // ~10 a count read right after the click saw 0 of retry-ladder's 23 events)
        await page.waitForLoadState('load');
        expect(page.url().split('#')[0]).toBe('file://' + path.join(out, `${lab.lab}.html`)); // the player keeps its step in the hash
        expect(await page.locator('svg.timeline g.ev').count(), lab.lab).toBe(lab.events.length);
        expect(await page.locator('h1 .badge').getAttribute('data-verdict')).toBe(verdict(lab.status));
      }
    } finally {
      await browser.close();
    }
  }, 240_000);

  it('--version is the package’s own, from any folder and under npm run', async () => {
    const r = await execa('node', [CLI, '--version'], { cwd: tmp, env: { npm_package_version: '9.9.9' } });
    expect(r.stdout).toBe(VERSION);
  });

  it('--color colours a pipe; --no-color wins over FORCE_COLOR', async () => {
    const coloured = await mqlab(['compensate', '--namespace', NS, '--color']);
    expect(coloured.stdout).toContain('\u001b[32mPASS ');
    const forced = await mqlab(['compensate', '--namespace', NS, '--no-color'], { FORCE_COLOR: '1' });
    expect(forced.stdout).not.toContain('\u001b[');
  });
});
