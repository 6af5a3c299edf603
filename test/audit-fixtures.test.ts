/**
 * The definitions files of test/fixtures/audit (written here in the shapes real exports have: see its
 * README for where each shape comes from) audited offline: each gives exactly the findings listed,
 * judged for its own version (or 4.3), and the ones that are no export are refused with a true line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';
import { checkExport, fromDefinitions } from '../src/audit/definitions.js';
import { readJsonFile } from '../src/audit/read-file.js';
import { audit } from '../src/audit/run-audit.js';
import { nothingLine } from '../src/audit/output.js';
import { DEFAULT_TARGET, exactVersion, parseTarget, parseVersion } from '../src/audit/target.js';
import { noTicks } from '../src/audit/ticker.js';

const DIR = path.join(ROOT, 'test', 'fixtures', 'audit');

/** file → its vhosts, and its findings as [check, severity, object, queues] */
const EXPECTED: Record<string, { vhosts: string[]; findings: [string, string, string, string[]][]; nothing?: true }> = {
  'export-4.3-cluster.json': {
    vhosts: ['shop'],
    findings: [
      ['dead-letter-unroutable', 'error', 'shop.dlx', ['email.notifications', 'password.resets', 'invoices']],
      ['policy-not-applied', 'warning', 'limits', ['email.notifications', 'password.resets', 'invoices']],
    ],
  },
  'export-4.3-vhost.json': {
    vhosts: ['billing'],
    findings: [
      ['retry-loop-unbounded', 'info', 'billing.work', []],
      ['definitions-without-vhost', 'info', 'export-4.3-vhost.json', []],
    ],
  },
  'export-3.10-vhost.json': {
    vhosts: ['lab'],
    findings: [
      ['dead-letter-loop', 'error', 'jobs', []],
      ['definitions-without-vhost', 'info', 'export-3.10-vhost.json', []],
    ],
  },
  'export-3.7-mirrored.json': {
    vhosts: ['/'],
    findings: [['classic-mirroring-policy', 'info', 'ha', ['tasks']]],
  },
  'hand-written.json': {
    vhosts: ['/'],
    findings: [
      ['transient-nonexclusive-queue', 'warning', 'scratch', []],
      ['queue-type-ignored', 'warning', 'payments', []],
    ],
  },
  'vhosts-and-permissions.json': { vhosts: ['/'], findings: [], nothing: true },
  'policies-only.json': { vhosts: ['/'], findings: [['classic-mirroring-policy', 'error', 'ha2', []]] },
  'topic-routes.json': {
    vhosts: ['events'],
    findings: [
      ['dead-letter-unroutable', 'error', 'dead', ['billing']],
      ['retry-loop-unbounded', 'info', 'shipping', []],
      ['dead-letter-retry-fanout', 'warning', 'shipping.delay', ['audit-log']],
    ],
  },
  'import-refused.json': {
    vhosts: ['(the file’s vhost)', '/'],
    findings: [
      ['policy-pattern-invalid', 'info', 'digits', []],
      ['queue-arguments-refused', 'error', 'qq.1', []],
      ['binding-to-undeclared', 'error', 'events → cq.1', []],
      ['definitions-without-vhost', 'error', 'import-refused.json', []],
      ['definitions-invalid', 'error', 'policy (unnamed)', []],
      ['definitions-invalid', 'warning', 'queue amq.queuebar', []],
      ['definitions-invalid', 'error', 'exchange invalid_type', []],
    ],
  },
  'windows-bom.json': { vhosts: ['/'], findings: [] },
};

async function run(file: string) {
  const doc = checkExport(readJsonFile(path.join(DIR, file)), file);
  const s = await fromDefinitions(doc, { file, tick: noTicks });
  const known = parseVersion(s.broker?.version);
  return audit(s, {
    failOn: 'error',
    target: known ?? parseTarget(DEFAULT_TARGET),
    exact: known ? exactVersion(s.broker?.version) : false,
    targetFrom: known ? 'source' : 'default',
  });
}

describe('definitions files in the shapes RabbitMQ and people write them', () => {
  it('every fixture is listed here (or refused below)', () => {
    const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json'));
    expect(files.filter((f) => !(f in EXPECTED))).toEqual([]);
  });

  it.each(Object.entries(EXPECTED))('%s', async (file, want) => {
    const r = await run(file);
    expect(r.snapshot.vhosts).toEqual(want.vhosts);
    expect(r.findings.map((f) => [f.check, f.severity, f.object.name, f.queues ?? []])).toEqual(want.findings);
    expect(nothingLine(r) !== null).toBe(Boolean(want.nothing));
  });

  it('a file with a trailing comma (which RabbitMQ refuses too): one line with the place, no content', () => {
    expect(() => readJsonFile(path.join(DIR, 'trailing-comma.txt'))).toThrow(
      /trailing-comma\.txt is not valid JSON \(line 5, column 3\): a truncated or damaged export\?$/,
    );
  });
});
