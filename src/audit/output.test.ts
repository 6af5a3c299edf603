import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { audit as run } from './run-audit.js';
import { auditErrorJson, auditJson, auditJunit, renderText } from './output.js';
import { checkExport, fromDefinitions } from './definitions.js';
import { readJsonFile } from './read-file.js';
import type { Severity } from './finding.js';
import type { Snapshot } from './snapshot.js';
import { noTicks } from './ticker.js';
import { UsageError } from '../core/errors.js';
import { auditErrors } from '../../test/audit-validate.js';
import { ensureXmllint, find, junitXsdErrors, parseXml } from '../../test/report-validate.js';

const EXPORT = {
  rabbit_version: '4.3.6',
  rabbitmq_version: '4.3.6',
  product_name: 'RabbitMQ',
  vhosts: [{ name: 'lab' }, { name: '/' }],
  policies: [
    {
      vhost: 'lab',
      name: 'low',
      pattern: '^hold$',
      'apply-to': 'queues',
      priority: 0,
      definition: { 'dead-letter-exchange': 'gone' },
    },
    {
      vhost: 'lab',
      name: 'high',
      pattern: '^ho',
      'apply-to': 'quorum_queues',
      priority: 5,
      definition: { 'dead-letter-exchange': 'dlx', 'dead-letter-strategy': 'at-least-once' },
    },
  ],
  queues: [
    { name: 'hold', vhost: 'lab', durable: true, auto_delete: false, arguments: { 'x-queue-type': 'quorum' } },
    {
      name: 'loop',
      vhost: 'lab',
      durable: true,
      auto_delete: false,
      arguments: { 'x-queue-type': 'quorum', 'x-dead-letter-exchange': 'dlx', 'x-dead-letter-routing-key': 'loop' },
    },
    {
      name: 'other',
      vhost: '/',
      durable: true,
      auto_delete: false,
      arguments: { 'x-dead-letter-exchange': 'nowhere' },
    },
  ],
  exchanges: [
    { name: 'dlx', vhost: 'lab', type: 'direct', durable: true, auto_delete: false, internal: false, arguments: {} },
  ],
  bindings: [
    { source: 'dlx', vhost: 'lab', destination: 'loop', destination_type: 'queue', routing_key: 'loop', arguments: {} },
  ],
};

beforeAll(() => ensureXmllint(), 600_000);

const read = (doc: unknown, vhost?: string) => fromDefinitions(doc, { file: 'defs.json', vhost, tick: noTicks });
const audit = (s: Snapshot, failOn: Severity | 'never' = 'error') =>
  run(s, { failOn, target: [4, 3, 6], exact: true, targetFrom: 'source' });
const readFile = (file: string) => checkExport(readJsonFile(file), file);

describe('a definitions export', () => {
  it('audits offline: the policy in effect is the matching one of highest priority whose apply-to fits', async () => {
    const s = await read(EXPORT);
    expect(s.vhosts).toEqual(['/', 'lab']);
    const r = await audit(s);
    expect(s.queues.find((q) => q.name === 'hold')).toMatchObject({
      policy: { 'dead-letter-exchange': 'dlx', 'dead-letter-strategy': 'at-least-once' },
      policyName: 'high',
    });
    expect(r.findings.map((f) => [f.check, f.vhost, f.object.name, f.queues ?? []])).toEqual([
      ['dead-letter-loop', 'lab', 'loop', []],
      ['dead-letter-exchange-missing', '/', 'nowhere', ['other']],
      ['dead-letter-unroutable', 'lab', 'dlx', ['hold']],
      ['at-least-once-fallback', 'lab', 'hold', []],
    ]);
    expect(r.findings[1]?.evidence.from).toBe('argument x-dead-letter-exchange');
    expect(r.findings[3]?.problem).toMatch(/^at-least-once dead lettering \(from policy 'high'\) is not/);
    expect((await read(EXPORT, 'lab')).queues.map((q) => q.name)).toEqual(['hold', 'loop']);
  });

  it('a truncated file, foreign JSON, or a missing file is one line (a UsageError), naming the file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-audit-'));
    const write = (name: string, text: string) => (fs.writeFileSync(path.join(dir, name), text), path.join(dir, name));
    const truncated = write('t.json', JSON.stringify(EXPORT).slice(0, 200));
    expect(() => readFile(truncated)).toThrow(/t\.json is not valid JSON \(it ends too soon\): a truncated/);
    expect(() => readFile(write('f.json', '{"name":"my-app","version":"1.0.0","dependencies":{}}'))).toThrow(
      /is not a RabbitMQ definitions export/,
    );
    expect(() => readFile(write('a.json', '[1,2]'))).toThrow(/is not a RabbitMQ definitions export \(a JSON array/);
    expect(() => readFile(path.join(dir, 'none.json'))).toThrow(/cannot read .*none\.json: ENOENT/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('outputs', async () => {
  const r = await audit(await read(EXPORT));
  const t = { readMs: 12.4, readCpuMs: 10.2, checkMs: 3.2, checkCpuMs: 2.1, requests: 0 };

  it('--json matches docs/audit.schema.json, and the schema does refuse a wrong document', () => {
    const doc = auditJson(r, t);
    expect(auditErrors(doc)).toBe('');
    expect(doc).toMatchObject({
      schemaVersion: 2,
      result: 'failed',
      source: { kind: 'definitions', file: 'defs.json' },
      target: { version: '4.3.6', from: 'source' },
      definitions: { shape: 'cluster', nothingToCheck: false },
      objects: { consumers: null, policies: 2 },
      summary: { error: 4 },
    });
    expect(auditErrors({ ...doc, findings: [{ ...doc.findings[0], severity: 'fatal' }] })).toMatch(/severity/);
    expect(auditErrors({ ...doc, source: { kind: 'management', url: 'http://admin:secret@h:15672' } })).not.toBe('');
    // after a usage error, --json still prints a document: "result": "error"
    const error = auditErrorJson(new UsageError('defs.json is not valid JSON (line 2, column 1)', 'give an export'));
    expect(auditErrors(error)).toBe('');
    expect(error).toMatchObject({ result: 'error', error: { kind: 'usage', hint: 'give an export' } });
  });

  it('--junit: one testcase per check, a finding at or above --fail-on is its failure, a skipped check is skipped (Jenkins XSD)', async () => {
    const xml = auditJunit(r, t, new Date('2026-12-01T10:00:00Z'));
    expect(junitXsdErrors(xml)).toBe('');
    const doc = parseXml(xml);
    const cases = find(doc, 'testcase');
    expect(cases.map((c) => c.attrs.name)).toEqual(r.checks.map((c) => c.id));
    expect(find(doc, 'failure').map((f) => f.attrs.type)).toEqual(['error', 'error', 'error', 'error']);
    expect(find(doc, 'skipped').length).toBe(r.checks.filter((c) => c.status === 'skipped').length);
    // at --fail-on never nothing fails: the findings stay in the testcase's output
    const never = parseXml(auditJunit(await audit(r.snapshot, 'never'), t));
    expect(find(never, 'failure')).toEqual([]);
  });

  it('text: grouped by severity, each finding with its object, lab and fix, the skipped checks by reason, a RESULT line', () => {
    const lines = renderText(r);
    expect(lines[0]).toBe(
      'audit: RabbitMQ 4.3.6 from the definitions file defs.json (offline); 2 vhosts: 3 queues, 1 exchange, 1 binding, 2 policies; judged for 4.3.6',
    );
    expect(lines).toContain('ERRORS (4)');
    expect(lines).toContain('  dead-letter-loop: vhost lab, queue loop');
    expect(lines).toContain('    see: mqlab dlx-loop');
    const skipped = r.checks.filter((c) => c.status === 'skipped');
    expect(lines.filter((l) => l.startsWith('SKIP ')).join('\n')).toMatch(
      new RegExp(
        `^SKIP ${skipped
          .filter((c) => /statistics/.test(c.skipped!))
          .map((c) => c.id)
          .join(', ')}: needs live statistics`,
        'm',
      ),
    );
    expect(lines.at(-1)).toBe(
      `RESULT: ${r.checks.length - skipped.length} of ${r.checks.length} checks ran, 4 findings (4 error, 0 warning, 0 info): FAILED (--fail-on error)`,
    );
  });
});
