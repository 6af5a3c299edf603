import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { audit } from './run-audit.js';
import { auditJson, auditJunit, renderText } from './output.js';
import { fromDefinitions, readDefinitions, effectivePolicy } from './definitions.js';
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

describe('a definitions export', () => {
  it('audits offline: the policy in effect is the matching one of highest priority whose apply-to fits', () => {
    const s = fromDefinitions(EXPORT, 'defs.json');
    expect(s.vhosts).toEqual(['lab', '/']);
    expect(s.queues.find((q) => q.name === 'hold')?.policy).toEqual({
      'dead-letter-exchange': 'dlx',
      'dead-letter-strategy': 'at-least-once',
    });
    expect(effectivePolicy('hold', 'classic', EXPORT.policies)).toEqual({ 'dead-letter-exchange': 'gone' });
    const r = audit(s, 'error');
    expect(r.findings.map((f) => [f.check, f.vhost, f.object.name])).toEqual([
      ['dead-letter-loop', 'lab', 'loop'],
      ['dead-letter-exchange-missing', '/', 'other'],
      ['dead-letter-unroutable', 'lab', 'hold'],
      ['at-least-once-fallback', 'lab', 'hold'],
    ]);
    expect(fromDefinitions(EXPORT, 'defs.json', 'lab').queues.map((q) => q.name)).toEqual(['hold', 'loop']);
  });

  it('a truncated file, foreign JSON, or a missing file is one line (a UsageError), naming the file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-audit-'));
    const write = (name: string, text: string) => (fs.writeFileSync(path.join(dir, name), text), path.join(dir, name));
    const truncated = write('t.json', JSON.stringify(EXPORT).slice(0, 200));
    expect(() => readDefinitions(truncated)).toThrow(/t\.json is not valid JSON .*truncated/);
    expect(() => readDefinitions(write('f.json', '{"name":"my-app","version":"1.0.0","dependencies":{}}'))).toThrow(
      /is not a RabbitMQ definitions export/,
    );
    expect(() => readDefinitions(write('a.json', '[1,2]'))).toThrow(/is not a RabbitMQ definitions export/);
    expect(() => readDefinitions(path.join(dir, 'none.json'))).toThrow(/cannot read .*none\.json: ENOENT/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('outputs', () => {
  const r = audit(fromDefinitions(EXPORT, 'defs.json'), 'error');
  const t = { readMs: 12.4, checkMs: 3.2, requests: 0 };

  it('--json matches docs/audit.schema.json, and the schema does refuse a wrong document', () => {
    const doc = auditJson(r, t);
    expect(auditErrors(doc)).toBe('');
    expect(doc).toMatchObject({
      schemaVersion: 1,
      result: 'failed',
      source: { kind: 'definitions', file: 'defs.json' },
      objects: { consumers: null },
      summary: { error: 4 },
    });
    expect(auditErrors({ ...doc, findings: [{ ...doc.findings[0], severity: 'fatal' }] })).toMatch(/severity/);
    expect(auditErrors({ ...doc, source: { kind: 'management', url: 'http://admin:secret@h:15672' } })).not.toBe('');
  });

  it('--junit: one testcase per check, a finding at or above --fail-on is its failure, a skipped check is skipped (Jenkins XSD)', () => {
    const xml = auditJunit(r, t, new Date('2026-12-01T10:00:00Z'));
    expect(junitXsdErrors(xml)).toBe('');
    const doc = parseXml(xml);
    const cases = find(doc, 'testcase');
    expect(cases.map((c) => c.attrs.name)).toEqual(r.checks.map((c) => c.id));
    expect(find(doc, 'failure').map((f) => f.attrs.type)).toEqual(['error', 'error', 'error', 'error']);
    expect(find(doc, 'skipped').length).toBe(r.checks.filter((c) => c.status === 'skipped').length);
    // at --fail-on never nothing fails: the findings stay in the testcase's output
    const never = parseXml(auditJunit(audit(r.snapshot, 'never'), t));
    expect(find(never, 'failure')).toEqual([]);
  });

  it('text: grouped by severity, each finding with its object, lab and fix, the skipped checks, a RESULT line', () => {
    const lines = renderText(r);
    expect(lines[0]).toBe(
      'audit: RabbitMQ 4.3.6 from the definitions file defs.json (offline); 2 vhosts: 3 queues, 1 exchange, 1 binding',
    );
    expect(lines).toContain('ERRORS (4)');
    expect(lines).toContain('  dead-letter-loop: vhost lab, queue loop');
    expect(lines).toContain('    see: mqlab dlx-loop');
    expect(lines.filter((l) => l.startsWith('SKIP ')).length).toBe(
      r.checks.filter((c) => c.status === 'skipped').length,
    );
    expect(lines.at(-1)).toBe(
      'RESULT: 5 of 15 checks ran, 4 findings (4 error, 0 warning, 0 info): FAILED (--fail-on error)',
    );
  });
});
