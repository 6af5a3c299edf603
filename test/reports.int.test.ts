/**
 * What a CI job reads, from real runs: the --json document against docs/report.schema.json, and the
 * --junit file through a strict XML parser and the Jenkins JUnit XSD — for a whole `mqlab all`,
 * an environment error, a usage error and an interrupted run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { CLI, ROOT, mqlab, startMqlab, useNamespace } from './helpers.js';
import { ensureXmllint, find, junitXsdErrors, labErrors, parseXml, reportErrors } from './report-validate.js';
import { registry } from '../labs/registry.js';

const NS = useNamespace(import.meta.url).namespace; // the runs below also name it with --namespace, as a user would

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-reports-'));
const junitAt = (name: string) => path.join(tmp, `${name}.junit.xml`);
const VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

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
    const doc = JSON.parse(json.stdout);
    expect(reportErrors(doc)).toBe('');
    expect(doc.labs[0].faults).toEqual(['late-publish']);
    const text = await mqlab(['retry-dlq', '--namespace', NS], fault);
    expect(text.stdout.split('\n')[1]).toBe(
      'BROKEN VARIANT retry-dlq: late-publish (MQLAB_FAULT, test only): not the correct experiment',
    );
    // the correct experiment carries no such field
    const correct = JSON.parse((await mqlab(['retry-dlq', '--namespace', NS, '--json'])).stdout);
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

  it('mqlab all --json: the document and every lab match docs/report.schema.json; the JUnit matches the XSD', async () => {
    expect.hasAssertions(); // some assertions sit in loops over what the run observed
    const file = junitAt('all');
    // the labs that stop a service are left out (--skip: SKIP entries, which the schemas must hold too);
    // four labs at once, as a CI job would run them (each lab's entry names its own namespace)
    const r = await mqlab(
      ['all', '--jobs', '4', '--json', '--namespace', NS, '--junit', file, '--skip', 'db-outage,broker-restart'],
      {},
      600_000,
    );
    const doc = JSON.parse(r.stdout);
    const failed = doc.labs
      .filter((l: { status: string }) => l.status === 'failed' || l.status === 'error')
      .map(
        (l: { lab: string; error?: string; checks: { name: string; pass: boolean }[] }) =>
          `${l.lab}: ${
            l.error ??
            l.checks
              .filter((c) => !c.pass)
              .map((c) => c.name)
              .join(',')
          }`,
      );
    expect(r.code, failed.join('\n')).toBe(0);
    expect(reportErrors(doc)).toBe('');
    expect(doc.labs).toHaveLength(registry.length);
    for (const lab of doc.labs) expect(labErrors(lab), lab.lab).toBe('');
    expect(doc).toMatchObject({ schemaVersion: 1, mqlabVersion: VERSION, namespace: NS });
    // --jobs: each lab's entry says the namespace it ran in
    expect(doc.labs.map((l: { lab: string; namespace: string }) => [l.lab, l.namespace])).toEqual(
      registry.map((l, i) => [l.name, `${NS}_j${i + 1}`]),
    );
    expect(doc.labs.map((l: { lab: string }) => l.lab)).toEqual(registry.map((e) => e.name));
    // the schema can fail: a document without its version does not match
    expect(reportErrors({ ...doc, schemaVersion: undefined })).toMatch(/schemaVersion/);

    const xml = junitOf(file);
    const suites = find(xml, 'testsuite');
    expect(suites.map((s) => s.attrs.name)).toEqual(doc.labs.map((l: { lab: string }) => l.lab));
    for (const [i, s] of suites.entries()) {
      const lab = doc.labs[i];
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
  }, 600_000);

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
