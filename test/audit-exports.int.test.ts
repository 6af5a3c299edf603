/**
 * One topology, audited four ways: live through the management API, and offline from each export
 * the broker at hand writes — `rabbitmqctl export_definitions`, GET /api/definitions and
 * GET /api/definitions/<vhost> (objects without a vhost field). The definitions-level findings about
 * this file's objects are the same in all four; the one-vhost export also says how it imports.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import amqp from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG, mqlab, useNamespace } from './helpers.js';
import type { Management } from '../src/broker/management.js';
import { dropAdministrator, makeAdministrator } from './administrator.js';
import { auditErrors } from './audit-validate.js';
import { auditDoc, exportDefinitions, findingsOf, type AuditDoc, type AuditFinding } from './audit-support.js';

const n = useNamespace(import.meta.url);
const NS = n.namespace;
/** an administrator: GET /api/definitions is for administrators, which mqlab's management account is not */
const ADMIN = `${NS}-admin`;
let mgmt: Management;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-audit-exports-'));
const QUEUES = ['loop', 'work', 'pay.dlq', 'work2', 'delay', 'audit', 'shadow', 'plain'];
const EXCHANGES = ['loop.dlx', 'events', 'dlx', 'retry', 'events2'];

beforeAll(async () => {
  mgmt = await makeAdministrator(ADMIN);
  const conn = await amqp.connect(CONFIG.amqpUrl);
  const ch = await conn.createChannel();
  const quorum = (args: Record<string, unknown> = {}) => ({
    durable: true,
    arguments: { 'x-queue-type': 'quorum', ...args },
  });
  for (const [x, type] of [
    ['loop.dlx', 'direct'],
    ['events', 'topic'],
    ['dlx', 'topic'],
    ['retry', 'fanout'],
    ['events2', 'topic'],
  ])
    await ch.assertExchange(n.x(x!), type!, { durable: true });
  // a loop straight back
  await ch.assertQueue(
    n.q('loop'),
    quorum({ 'x-dead-letter-exchange': n.x('loop.dlx'), 'x-dead-letter-routing-key': 'k' }),
  );
  await ch.bindQueue(n.q('loop'), n.x('loop.dlx'), 'k');
  // a partial loss: order.* letters dropped, payment.* letters in another DLQ
  await ch.assertQueue(n.q('work'), quorum({ 'x-dead-letter-exchange': n.x('dlx') }));
  await ch.bindQueue(n.q('work'), n.x('events'), 'order.*');
  await ch.bindQueue(n.q('work'), n.x('events'), 'payment.*');
  await ch.assertQueue(n.q('pay.dlq'), { durable: true, arguments: { 'x-queue-type': 'classic' } });
  await ch.bindQueue(n.q('pay.dlq'), n.x('dlx'), 'payment.#');
  // a retry that fans out to another subscriber
  await ch.assertQueue(n.q('work2'), quorum({ 'x-dead-letter-exchange': n.x('retry') }));
  await ch.bindQueue(n.q('work2'), n.x('events2'), 'o.created');
  await ch.assertQueue(n.q('delay'), quorum({ 'x-message-ttl': 60_000, 'x-dead-letter-exchange': n.x('events2') }));
  await ch.bindQueue(n.q('delay'), n.x('retry'), '');
  await ch.assertQueue(n.q('audit'), { durable: true, arguments: { 'x-queue-type': 'classic' } });
  await ch.bindQueue(n.q('audit'), n.x('events2'), 'o.#');
  // a policy outranked where it matters: its dead-letter exchange never applies
  await ch.assertQueue(n.q('shadow'), { durable: true, arguments: { 'x-queue-type': 'classic' } });
  const exact = `^${n.q('shadow').replace(/\./g, '\\.')}$`;
  await mgmt.putPolicy({
    name: n.p('ttl'),
    pattern: exact,
    definition: { 'message-ttl': 60_000 },
    applyTo: 'queues',
    priority: 5,
  });
  await mgmt.putPolicy({
    name: n.p('dl'),
    pattern: exact,
    definition: { 'dead-letter-exchange': n.x('dlx') },
    applyTo: 'queues',
    priority: 0,
  });
  // a quorum queue under the default delivery limit (4.x), with no dead-letter exchange
  await ch.assertQueue(n.q('plain'), quorum());
  await conn.close();
});

afterAll(async () => {
  for (const p of ['ttl', 'dl']) await mgmt.deletePolicy(n.p(p)).catch(() => {});
  const conn = await amqp.connect(CONFIG.amqpUrl);
  const ch = await conn.createChannel();
  for (const q of QUEUES) await ch.deleteQueue(n.q(q));
  for (const x of EXCHANGES) await ch.deleteExchange(n.x(x));
  await conn.close();
  await dropAdministrator(ADMIN);
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** a finding as [check, object, queues]: what the four must agree on */
const shape = (f: AuditFinding) => [f.check, f.object.name, [...(f.queues ?? [])].sort()];
const DEFINITIONS_LEVEL = [
  'dead-letter-loop',
  'dead-letter-unroutable',
  'dead-letter-retry-fanout',
  'retry-loop-unbounded',
  'policy-not-applied',
];
const ours = (doc: AuditDoc) =>
  findingsOf(doc, NS)
    .filter((f) => DEFINITIONS_LEVEL.includes(f.check))
    .map(shape)
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

async function auditFile(doc: unknown, name: string, args: string[] = []): Promise<AuditDoc> {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, JSON.stringify(doc));
  const r = await mqlab(['audit', file, '--json', '--fail-on', 'never', ...args]);
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as AuditDoc;
  expect(auditErrors(out)).toBe('');
  return out;
}

describe('the exports the broker writes', { timeout: 240_000 }, () => {
  it('live, rabbitmqctl export_definitions, GET /api/definitions and GET /api/definitions/<vhost>: the same findings', async () => {
    const live = await auditDoc();
    const expected = [
      ['dead-letter-loop', n.q('loop'), []],
      ['dead-letter-retry-fanout', n.q('delay'), [n.q('audit')]],
      ['dead-letter-unroutable', n.x('dlx'), [n.q('work')]],
      ['policy-not-applied', n.p('dl'), [n.q('shadow')]],
      ['retry-loop-unbounded', n.q('work2'), []],
    ];
    expect(ours(live)).toEqual(expected);
    const unroutable = findingsOf(live, NS).find((f) => f.check === 'dead-letter-unroutable')!;
    expect(unroutable.evidence).toMatchObject({
      dropped: { [n.q('work')]: ['order.other'] },
      routedElsewhere: { [n.q('work')]: [n.q('pay.dlq')] },
      from: 'argument x-dead-letter-exchange',
    });

    const cli = await auditFile(await exportDefinitions(), 'rabbitmqctl.json');
    const all = await auditFile(await mgmt.request('GET', '/api/definitions'), 'all.json');
    const one = await mgmt.request<Record<string, unknown>>(
      'GET',
      `/api/definitions/${encodeURIComponent(CONFIG.vhost)}`,
    );
    expect((one.queues as Record<string, unknown>[]).every((q) => !('vhost' in q))).toBe(true);
    // 4.0+ names the vhost (original_vhost_name); before, --vhost does
    const vhostDoc = await auditFile(one, 'vhost.json', 'original_vhost_name' in one ? [] : ['--vhost', CONFIG.vhost]);
    for (const doc of [cli, all, vhostDoc]) {
      expect(ours(doc)).toEqual(expected);
      expect(findingsOf(doc, NS).every((f) => f.vhost === CONFIG.vhost)).toBe(true);
    }
    expect(vhostDoc.findings.filter((f) => f.check === 'definitions-without-vhost')).toMatchObject([
      { severity: 'info' },
    ]);
    expect(all.findings.filter((f) => f.check === 'definitions-without-vhost')).toEqual([]);

    // offline, the default delivery limit governs the quorum queue with no dead-letter exchange from 4.0
    const major = Number(cli.broker.version.split('.')[0]);
    const limit = findingsOf(cli, NS).filter((f) => f.check === 'quorum-default-delivery-limit');
    if (major >= 4) expect(limit.flatMap((f) => f.queues ?? [f.object.name])).toContain(n.q('plain'));
    else expect(limit).toEqual([]);
    const upgrade = await auditFile(await exportDefinitions(), 'upgrade.json', ['--target-version', '4.3']);
    expect(
      findingsOf(upgrade, NS)
        .filter((f) => f.check === 'quorum-default-delivery-limit')
        .flatMap((f) => f.queues ?? [f.object.name]),
    ).toContain(n.q('plain'));
  });
});
