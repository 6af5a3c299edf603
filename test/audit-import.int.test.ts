/**
 * What the broker at hand does with what `mqlab audit` reports, measured beside the audit's finding
 * for the same file or state (docs/audit.md "measured"): imports through the node's CLI
 * (`rabbitmqctl import_definitions`, a whole-cluster import, into a vhost of this file's own), queue
 * declarations, and the policy the broker applies. On 4.3.6, 4.0.5 and 3.10.8 each claim is asserted
 * as that line behaves.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import amqp, { type ChannelModel } from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG, mqlab, useNamespace } from './helpers.js';
import type { Management } from '../src/broker/management.js';
import { dropAdministrator, makeAdministrator } from './administrator.js';
import { auditErrors } from './audit-validate.js';
import { auditDoc, auditUntil, rabbitmqctl, type AuditDoc, type AuditFinding } from './audit-support.js';
import { atLeast, parseVersion, type Version } from '../src/audit/target.js';

const n = useNamespace(import.meta.url);
const NS = n.namespace;
/** a vhost of this file's own, made by the imports and deleted at the end */
const VH = `${NS}-vh`;
/** an administrator: this file reads its own vhost, which mqlab's management account (vhost lab only) may not */
const ADMIN = `${NS}-admin`;
let mgmt: Management;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-audit-import-'));
let version: Version;
let conn: ChannelModel;

beforeAll(async () => {
  mgmt = await makeAdministrator(ADMIN);
  version = parseVersion((await mgmt.request<{ rabbitmq_version: string }>('GET', '/api/overview')).rabbitmq_version)!;
  conn = await amqp.connect(CONFIG.amqpUrl);
  await rabbitmqctl(['delete_vhost', VH]); // left by an earlier run
});

afterAll(async () => {
  await rabbitmqctl(['delete_vhost', VH]);
  for (const p of (await mgmt.policies()).filter((p) => p.name.startsWith(`${NS}-`))) await mgmt.deletePolicy(p.name);
  const ch = await conn.createChannel();
  for (const q of ['lazy', 'v1', 'transient', 'pol.classic', 'pol.quorum', 'ovf']) await ch.deleteQueue(n.q(q));
  await conn.close();
  await dropAdministrator(ADMIN);
  fs.rmSync(tmp, { recursive: true, force: true });
});

const on43 = () => atLeast(version, '4.3.0');
const on4 = () => atLeast(version, '4.0.0');

/** import `doc` through the node's CLI: the exit code and what it printed */
const importFile = (doc: unknown) =>
  rabbitmqctl(['import_definitions', 'defs.json'], { 'defs.json': JSON.stringify(doc) });
const vhostObjects = async () => ({
  queues: (await mgmt.request<{ name: string }[]>('GET', `/api/queues/${VH}?columns=name`)).map((q) => q.name).sort(),
  policies: (await mgmt.request<{ name: string }[]>('GET', `/api/policies/${VH}`)).map((p) => p.name),
  bindings: (await mgmt.request<{ source: string; destination: string }[]>('GET', `/api/bindings/${VH}`))
    .filter((b) => b.source !== '')
    .map((b) => `${b.source} → ${b.destination}`),
});
/** `mqlab audit FILE --json` judged for the broker's own version */
async function auditFile(doc: unknown, name: string): Promise<AuditDoc> {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, JSON.stringify(doc));
  const r = await mqlab(['audit', file, '--json', '--fail-on', 'never', '--target-version', version.join('.')]);
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as AuditDoc;
  expect(auditErrors(out)).toBe('');
  return out;
}
const checks = (doc: AuditDoc) => doc.findings.map((f) => [f.check, f.severity, f.object.name]);
const queue = (name: string, args: Record<string, unknown> = {}) => ({
  name,
  vhost: VH,
  durable: true,
  auto_delete: false,
  arguments: args,
});

describe('imports (rabbitmqctl import_definitions) and the audit of the same file', { timeout: 240_000 }, () => {
  it('a classic mirroring policy: 4.x refuses the import and declares nothing; 3.10 imports it', async () => {
    const doc = {
      rabbit_version: '3.13.7',
      vhosts: [{ name: VH }],
      policies: [
        {
          vhost: VH,
          name: 'ha',
          pattern: '^ha\\.',
          'apply-to': 'queues',
          priority: 0,
          definition: { 'ha-mode': 'all' },
        },
      ],
      queues: [queue('ha.one')],
    };
    const r = await importFile(doc);
    const found = (await auditFile(doc, 'ha.json')).findings.filter((f) => f.check === 'classic-mirroring-policy');
    if (on4()) {
      expect(r.exitCode, r.stdout).not.toBe(0);
      expect(`${r.stdout}${r.stderr}`).toMatch(/not recognised policy settings/);
      expect(await vhostObjects()).toMatchObject({ queues: [], policies: [] });
      expect(found).toMatchObject([{ severity: 'error', object: { kind: 'policy', name: 'ha' }, queues: ['ha.one'] }]);
    } else {
      expect(r.exitCode, r.stdout + r.stderr).toBe(0);
      expect(await vhostObjects()).toMatchObject({ queues: ['ha.one'], policies: ['ha'] });
      expect(found).toMatchObject([{ severity: 'info', object: { name: 'ha' } }]);
    }
  });

  it('a user whose limit is not a number (failing_case19): refused on every line before any queue; a number: imported', async () => {
    const user = `${NS}-limited`;
    const doc = (limit: unknown) => ({
      users: [{ name: user, password_hash: '', tags: [], limits: { 'max-connections': limit } }],
      vhosts: [{ name: VH }],
      queues: [queue('u1')],
    });
    // the vhost too is made after the users: a refused user leaves no vhost (null: not found)
    const queues = async () =>
      ((await mgmt.request<{ name: string }[] | null>('GET', `/api/queues/${VH}?columns=name`)) ?? []).map(
        (q) => q.name,
      );
    try {
      const bad = doc('twomincepies');
      const r = await importFile(bad);
      expect(r.exitCode, r.stdout).not.toBe(0);
      expect(await queues()).not.toContain('u1');
      expect(checks(await auditFile(bad, 'user.json'))).toContainEqual([
        'definitions-invalid',
        'error',
        `user ${user}`,
      ]);
      const good = doc(10);
      expect((await importFile(good)).exitCode).toBe(0);
      expect(await queues()).toContain('u1');
      expect(checks(await auditFile(good, 'user.json')).filter((c) => c[0] === 'definitions-invalid')).toEqual([]);
    } finally {
      await rabbitmqctl(['delete_user', user]);
    }
  });

  it('a binding to a queue the file does not declare: 3.13.6+ fails after declaring the rest, 3.10 drops it without a word', async () => {
    const doc = {
      vhosts: [{ name: VH }],
      exchanges: [
        { name: 'x', vhost: VH, type: 'direct', durable: true, auto_delete: false, internal: false, arguments: {} },
      ],
      queues: [queue('b1')],
      bindings: [
        { source: 'x', vhost: VH, destination: 'nope', destination_type: 'queue', routing_key: 'k', arguments: {} },
        { source: 'x', vhost: VH, destination: 'b1', destination_type: 'queue', routing_key: 'k', arguments: {} },
      ],
    };
    const r = await importFile(doc);
    const after = await vhostObjects();
    expect(after.queues).toContain('b1');
    expect(after.bindings).not.toContain('x → nope');
    // from 3.13.6 (source: rabbit_definitions add_binding_int throws the error; src/audit/checks-import.ts)
    if (atLeast(version, '3.13.6')) {
      expect(r.exitCode).not.toBe(0);
      expect(`${r.stdout}${r.stderr}`).toMatch(/resources_missing|not_found/);
    } else expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const found = (await auditFile(doc, 'binding.json')).findings.filter((f) => f.check === 'binding-to-undeclared');
    expect(found).toMatchObject([{ severity: 'error', object: { kind: 'binding', name: 'x → nope' } }]);
  });

  it('objects without a vhost in a whole-cluster import: refused on every line', async () => {
    const doc = { queues: [{ name: `${NS}.novh`, durable: true, auto_delete: false, arguments: {} }, queue('withvh')] };
    const r = await importFile(doc);
    expect(r.exitCode, r.stdout + r.stderr).not.toBe(0);
    expect((await vhostObjects()).queues).not.toContain('withvh');
    const found = (await auditFile(doc, 'novh.json')).findings.filter((f) => f.check === 'definitions-without-vhost');
    expect(found).toMatchObject([{ severity: 'error', object: { kind: 'definitions' } }]);
  });
});

describe('queue declarations', { timeout: 120_000 }, () => {
  /** declare on a channel of its own (a refusal closes it): null, or the broker's reply */
  async function declare(name: string, options: amqp.Options.AssertQueue): Promise<string | null> {
    const ch = await conn.createChannel();
    ch.on('error', () => {});
    try {
      await ch.assertQueue(name, options);
      await ch.close();
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  }
  const file = (queues: unknown[]) => ({ queues });

  it('arguments a queue type refuses: refused on every line, and reported', async () => {
    const refused = await declare(n.q('cq.dls'), {
      durable: true,
      arguments: { 'x-queue-type': 'classic', 'x-dead-letter-strategy': 'at-least-once' },
    });
    expect(refused).toMatch(
      /PRECONDITION_FAILED - invalid arg 'x-dead-letter-strategy' .* of queue type rabbit_classic_queue/,
    );
    const doc = file([queue('cq.dls', { 'x-queue-type': 'classic', 'x-dead-letter-strategy': 'at-least-once' })]);
    expect(checks(await auditFile(doc, 'args.json'))).toContainEqual(['queue-arguments-refused', 'error', 'cq.dls']);
  });

  it('x-queue-version 1: refused from 4.3; x-queue-mode lazy: accepted, and no effect since 3.12', async () => {
    const v1 = await declare(n.q('v1'), {
      durable: true,
      arguments: { 'x-queue-type': 'classic', 'x-queue-version': 1 },
    });
    if (on43()) expect(v1).toMatch(/unsupported queue version '1'/);
    else expect(v1).toBeNull();
    expect(
      await declare(n.q('lazy'), { durable: true, arguments: { 'x-queue-type': 'classic', 'x-queue-mode': 'lazy' } }),
    ).toBeNull();
    const found = checks(
      await auditFile(
        file([queue('v1', { 'x-queue-version': 1 }), queue('lazy', { 'x-queue-mode': 'lazy' })]),
        'v.json',
      ),
    );
    expect(found.filter(([c]) => c === 'queue-arguments-refused')).toEqual(
      on43() ? [['queue-arguments-refused', 'error', 'v1']] : [],
    );
    // 3.10: queue-mode still selects the mode (the check says so and skips)
    if (atLeast(version, '3.12.0')) expect(found).toContainEqual(['queue-mode-no-effect', 'info', 'lazy']);
    else expect(found.filter(([c]) => c === 'queue-mode-no-effect')).toEqual([]);
  });

  it('a transient non-exclusive queue: declared (4.3.6 permits it again; 3.10 knows no deprecation), reported from 4.0', async () => {
    expect(await declare(n.q('transient'), { durable: false, autoDelete: false, exclusive: false })).toBeNull();
    const doc = await auditDoc();
    const found = doc.findings.filter(
      (f) => f.check === 'transient-nonexclusive-queue' && (f.queues ?? [f.object.name]).includes(n.q('transient')),
    );
    if (on4()) expect(found).toMatchObject([{ severity: 'warning' }]);
    else expect(found).toEqual([]);
    const upgrade = await auditDoc(['--target-version', '4.3.2']);
    expect(
      upgrade.findings.filter(
        (f) => f.check === 'transient-nonexclusive-queue' && (f.queues ?? [f.object.name]).includes(n.q('transient')),
      ),
    ).toMatchObject([{ severity: 'error' }]);
    await (await conn.createChannel()).deleteQueue(n.q('transient'));
    expect((await auditDoc()).findings.filter((f) => (f.queues ?? [f.object.name]).includes(n.q('transient')))).toEqual(
      [],
    );
  });
});

describe('policies the broker applies', { timeout: 240_000 }, () => {
  const mine = (check: string, name: string) => (doc: AuditDoc) =>
    doc.findings.filter((f: AuditFinding) => f.check === check && f.object.name === name);

  it('a policy holding dead-letter-strategy does not apply to a classic queue; the next one does; without the key it applies', async () => {
    const ch = await conn.createChannel();
    await ch.assertQueue(n.q('pol.classic'), { durable: true, arguments: { 'x-queue-type': 'classic' } });
    await ch.assertQueue(n.q('pol.quorum'), { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    const pattern = `^${NS}\\.pol\\.`;
    const alo = {
      'dead-letter-exchange': n.x('dlx'),
      'dead-letter-strategy': 'at-least-once',
      overflow: 'reject-publish',
    };
    await mgmt.putPolicy({ name: n.p('alo'), pattern, definition: alo, applyTo: 'queues', priority: 1 });
    await mgmt.putPolicy({
      name: n.p('low'),
      pattern,
      definition: { 'message-ttl': 60_000 },
      applyTo: 'queues',
      priority: 0,
    });
    const applied = async () =>
      (
        await mgmt.request<{ name: string; policy: string | null }[]>(
          'GET',
          `/api/queues/${CONFIG.vhost}?columns=name,policy`,
        )
      )
        .filter((q) => q.name.startsWith(`${NS}.pol.`))
        .map((q) => [q.name, q.policy])
        .sort();
    await expect.poll(applied, { timeout: 20_000 }).toEqual([
      [n.q('pol.classic'), n.p('low')],
      [n.q('pol.quorum'), n.p('alo')],
    ]);
    const [f] = await auditUntil((fs) => fs.length > 0, mine('policy-not-applied', n.p('alo')));
    expect(f).toMatchObject({
      severity: 'warning',
      queues: [n.q('pol.classic')],
      evidence: { unsupportedKeys: ['dead-letter-strategy'] },
    });
    // without the key the classic queue refuses, the policy applies to both
    const plain = Object.fromEntries(Object.entries(alo).filter(([k]) => k !== 'dead-letter-strategy'));
    await mgmt.putPolicy({ name: n.p('alo'), pattern, definition: plain, applyTo: 'queues', priority: 1 });
    await expect.poll(applied, { timeout: 20_000 }).toEqual([
      [n.q('pol.classic'), n.p('alo')],
      [n.q('pol.quorum'), n.p('alo')],
    ]);
    await auditUntil((fs) => fs.length === 0, mine('policy-not-applied', n.p('alo')));
    await ch.close();
  });

  it('quorum overflow: the policy’s wins over the argument (source-audit-2 #14): at-least-once falls back; the policy’s reject-publish: gone', async () => {
    const q = n.q('ovf');
    const ch = await conn.createConfirmChannel();
    ch.on('error', () => {});
    // the argument asks reject-publish; the policy says drop-head, with at-least-once dead lettering
    await ch.assertQueue(q, {
      durable: true,
      arguments: { 'x-queue-type': 'quorum', 'x-max-length': 1, 'x-overflow': 'reject-publish' },
    });
    const policy = (overflow: string) =>
      mgmt.putPolicy({
        name: n.p('ovf'),
        pattern: `^${q.replace(/\./g, '\\.')}$`,
        definition: { overflow, 'dead-letter-exchange': 'amq.fanout', 'dead-letter-strategy': 'at-least-once' },
        applyTo: 'queues',
      });
    await policy('drop-head');
    const fallback = (doc: AuditDoc) =>
      doc.findings.filter((f) => f.check === 'at-least-once-fallback' && f.object.name === q);
    const [f] = await auditUntil((fs) => fs.length > 0, fallback);
    expect(f?.evidence).toMatchObject({
      overflow: 'drop-head',
      overflowFrom: expect.stringMatching(
        /^policy .* \(it wins over argument x-overflow = reject-publish\)$/,
      ) as unknown,
    });
    // what the broker does: both publishes confirmed, the first dropped (reject-publish would nack the second)
    for (const body of ['first', 'second']) {
      ch.sendToQueue(q, Buffer.from(body));
      await ch.waitForConfirms();
    }
    const m = await ch.get(q, { noAck: true });
    expect(m && m.content.toString()).toBe('second');
    // the fix in the policy, where the key is read: the second publish past the limit is refused
    await policy('reject-publish');
    await auditUntil((fs) => fs.length === 0, fallback);
    // (a quorum queue refuses once it is over the limit: the publish that crosses it is still taken)
    const nacked = async () => {
      for (const body of ['one', 'two', 'three']) {
        ch.sendToQueue(q, Buffer.from(body));
        if (
          await ch.waitForConfirms().then(
            () => false,
            () => true,
          )
        )
          return body;
      }
      return null;
    };
    expect(await nacked()).not.toBeNull();
    await ch.close().catch(() => {});
  });
});
