import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkExport, fromDefinitions, UNNAMED_VHOST } from './definitions.js';
import { readJsonFile, MAX_FILE_BYTES } from './read-file.js';
import { audit } from './run-audit.js';
import { nothingLine } from './output.js';
import { noTicks } from './ticker.js';
import { parseVersion, type Version } from './target.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-defs-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const write = (name: string, content: string | Buffer) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
};
const read = (doc: unknown, vhost?: string) => fromDefinitions(doc, { file: 'defs.json', vhost, tick: noTicks });
/** the findings of a document judged for `target` (else its own version, else 4.3): [check, object, severity] */
const findings = async (doc: unknown, target?: string, vhost?: string) => {
  const s = await read(doc, vhost);
  const v: Version = parseVersion(target ?? s.broker?.version ?? '4.3')!;
  const exact = /^\d+\.\d+\.\d+/.test(target ?? s.broker?.version ?? '');
  const r = await audit(s, { failOn: 'error', target: v, exact, targetFrom: 'option' });
  return { r, list: r.findings.map((f) => [f.check, f.object.name, f.severity]) };
};
const queue = (name: string, args: Record<string, unknown> = {}, more: Record<string, unknown> = {}) => ({
  name,
  vhost: '/',
  durable: true,
  auto_delete: false,
  arguments: args,
  ...more,
});

describe('reading a file (security review D18)', () => {
  it('refuses a device or a folder before reading it: /dev/zero does not hang', () => {
    expect(() => readJsonFile('/dev/zero')).toThrow(/\/dev\/zero is not a regular file \(a device, FIFO or socket\)/);
    expect(() => readJsonFile(dir)).toThrow(/is not a regular file \(a folder\)/);
  });

  it('refuses a file over the cap without reading it', () => {
    const big = path.join(dir, 'big.json');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, MAX_FILE_BYTES + 1); // sparse: no disk
    expect(() => readJsonFile(big)).toThrow(/big\.json is 256 MiB, more than the 256 MiB an audit reads/);
  });

  it('says where a file stops being JSON, never what it holds', () => {
    const file = write('shadow', 'root:*:20235:0:99999:7:::\ndaemon:*:20235\n');
    expect(() => readJsonFile(file)).toThrow(/is not valid JSON \(line 1, column 1\)/);
    expect(() => readJsonFile(file)).not.toThrow(/root|daemon|20235/);
    expect(() => readJsonFile(write('comma.json', '{\n  "queues": [],\n}'))).toThrow(/\(line 3, column 1\)/);
    expect(() => readJsonFile(write('empty.json', '  \n'))).toThrow(/empty\.json is empty/);
  });

  it('reads a file with a UTF-8 byte-order mark (as some Windows tools write it)', () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"queues":[]}')]);
    expect(readJsonFile(write('bom.json', bom))).toEqual({ queues: [] });
  });
});

describe('every export RabbitMQ writes and imports', () => {
  it('rabbit_version is optional (rabbit_definitions reads it with maps:get(…, undefined)): judged for 4.3', async () => {
    const doc = { queues: [queue('work', { 'x-queue-type': 'quorum' })] };
    const s = await read(doc);
    expect(s.broker).toBeNull();
    expect(s.queues.map((q) => [q.name, q.type])).toEqual([['work', 'quorum']]);
    expect((await findings(doc)).list).toEqual([['quorum-default-delivery-limit', 'work', 'warning']]);
  });

  it('a file of users and permissions only: nothing to check, and it says so', async () => {
    const doc = { rabbit_version: '4.1.4', vhosts: [{ name: '/' }], permissions: [{ user: 'u', vhost: '/' }] };
    const { r } = await findings(doc);
    expect(r.findings).toEqual([]);
    expect(nothingLine(r)).toBe(
      'nothing to check: no queues, exchanges, bindings or policies (it holds vhosts, permissions)',
    );
  });

  it('anything else is not an export: exit 2 with a true message', () => {
    expect(() => checkExport({ name: 'app', version: '1.0.0' }, 'package.json')).toThrow(
      /package\.json is not a RabbitMQ definitions export: an object with none of its lists/,
    );
    expect(() => checkExport('text', 'x.json')).toThrow(/a JSON string, not an object/);
  });

  it('a one-vhost export (GET /api/definitions/VHOST): objects without vhost are that vhost’s, not /', async () => {
    const doc = {
      rabbit_version: '4.3.6',
      rabbitmq_definition_format: 'single_virtual_host',
      original_vhost_name: 'orders',
      queues: [{ name: 'work', durable: true, arguments: { 'x-dead-letter-exchange': 'gone' } }],
      exchanges: [],
      bindings: [],
    };
    const { r, list } = await findings(doc);
    expect(r.snapshot.vhosts).toEqual(['orders']);
    expect(list).toEqual([
      ['dead-letter-exchange-missing', 'gone', 'error'],
      ['definitions-without-vhost', 'defs.json', 'info'],
    ]);
    expect(r.findings[0]?.vhost).toBe('orders');
    // before 4.0 the export does not name its vhost: --vhost does, else it says so
    const old = { ...doc, original_vhost_name: undefined };
    expect((await read(old)).vhosts).toEqual([UNNAMED_VHOST]);
    expect((await read(old, 'orders')).vhosts).toEqual(['orders']);
  });

  it('objects with and without a vhost in one file: a whole-cluster import refuses it', async () => {
    const doc = { queues: [queue('a'), { name: 'b', durable: true, arguments: {} }] };
    expect((await findings(doc)).list).toContainEqual(['definitions-without-vhost', 'defs.json', 'error']);
  });

  it('--vhost naming a vhost the file lacks is exit 2, listing those it has', async () => {
    await expect(read({ vhosts: [{ name: 'a' }], queues: [queue('q')] }, 'nope')).rejects.toThrow(
      /^no vhost nope in defs\.json$/,
    );
  });

  it('policies may come as parameters of component policy; entries the import refuses are findings', async () => {
    const doc = {
      parameters: [
        {
          vhost: '/',
          component: 'policy',
          name: 'p',
          value: { pattern: '.*', definition: { 'message-ttl': 5 }, priority: 0 },
        },
        { vhost: '/', component: 'vhost-limits', name: 'limits', value: { 'max-connections': 5 } },
      ],
      policies: [{ vhost: '/', pattern: '^x', definition: { 'max-length': 1 } }],
      exchanges: [{ name: 'x', vhost: '/', type: 'definitlynotdirect' }],
      queues: [queue('amq.mine'), queue('work')],
    };
    const { r, list } = await findings(doc);
    expect(r.snapshot.policies?.map((p) => p.name)).toEqual(['p']);
    expect(r.snapshot.queues.find((q) => q.name === 'work')?.policyName).toBe('p');
    expect(list).toEqual([
      ['definitions-invalid', 'policy (unnamed)', 'error'],
      ['definitions-invalid', 'queue amq.mine', 'warning'],
      ['definitions-invalid', 'exchange x', 'error'],
    ]);
  });

  it('the import reads x-queue-type, not "type": a hand-written "type": "quorum" becomes a classic queue', async () => {
    const { r, list } = await findings({ queues: [queue('q', {}, { type: 'quorum' })] });
    expect(r.snapshot.queues[0]?.type).toBe('classic');
    expect(list).toEqual([['queue-type-ignored', 'q', 'warning']]);
  });
});

describe('import and upgrade blockers, each judged for the target line', () => {
  const mirrored = {
    rabbit_version: '3.13.7',
    policies: [
      { vhost: '/', name: 'ha', pattern: '.*', 'apply-to': 'queues', priority: 0, definition: { 'ha-mode': 'all' } },
    ],
    queues: [queue('c')],
  };
  it('classic mirroring: an error for 4.x (the import aborts), info on 3.13', async () => {
    expect((await findings(mirrored, '4.3')).list).toEqual([['classic-mirroring-policy', 'ha', 'error']]);
    expect((await findings(mirrored)).list).toEqual([['classic-mirroring-policy', 'ha', 'info']]);
  });

  it('transient non-exclusive queues: refused by default on 4.3.0–4.3.5, permitted on 4.3.6 (measured)', async () => {
    const doc = { queues: [queue('t', {}, { durable: false })] };
    expect((await findings(doc, '4.3.2')).list).toEqual([['transient-nonexclusive-queue', 't', 'error']]);
    expect((await findings(doc, '4.3.6')).list).toEqual([['transient-nonexclusive-queue', 't', 'warning']]);
    expect((await findings(doc, '4.3')).list).toEqual([['transient-nonexclusive-queue', 't', 'warning']]);
    expect((await findings(doc, '3.13')).list).toEqual([]);
  });

  it('queue arguments a queue type refuses (measured on 4.3.6 and 3.10.8), and x-queue-version 1 from 4.3', async () => {
    const doc = {
      queues: [
        queue('cq', { 'x-queue-type': 'classic', 'x-dead-letter-strategy': 'at-least-once' }),
        queue('v1', { 'x-queue-version': 1 }),
        queue('lazy', { 'x-queue-mode': 'lazy' }),
      ],
    };
    expect((await findings(doc, '4.3.6')).list).toEqual([
      ['queue-arguments-refused', 'cq', 'error'],
      ['queue-arguments-refused', 'v1', 'error'],
      ['queue-mode-no-effect', 'lazy', 'info'],
    ]);
    expect((await findings(doc, '3.10.8')).list).toEqual([['queue-arguments-refused', 'cq', 'error']]);
  });

  it('bindings to objects the file does not declare (amq.* and the default exchange exist everywhere)', async () => {
    const b = (source: string, destination: string) => ({
      source,
      vhost: '/',
      destination,
      destination_type: 'queue',
      routing_key: 'k',
    });
    const doc = { queues: [queue('q')], bindings: [b('amq.direct', 'q'), b('x', 'q'), b('amq.topic', 'nope')] };
    expect((await findings(doc)).list).toEqual([
      ['binding-to-undeclared', 'x → q', 'error'],
      ['binding-to-undeclared', 'amq.topic → nope', 'error'],
    ]);
  });

  it('a binding to an undeclared object: the import fails from 3.13.6, drops it up to 3.13.5 (source)', async () => {
    const doc = {
      queues: [queue('q')],
      bindings: [{ source: 'x', vhost: '/', destination: 'q', destination_type: 'queue', routing_key: 'k' }],
    };
    const problem = async (target: string) => (await findings(doc, target)).r.findings[0]?.problem ?? '';
    expect(await problem('3.13.6')).toMatch(/the import fails on RabbitMQ 3\.13\.6 \(resources_missing/);
    expect(await problem('4.0.5')).toMatch(/the import fails on RabbitMQ 4\.0\.5/);
    expect(await problem('3.13.5')).toMatch(/drops the binding without a word on RabbitMQ 3\.13\.5/);
    expect(await problem('3.10.8')).toMatch(/drops the binding without a word on RabbitMQ 3\.10\.8/);
    expect(await problem('3.13')).toMatch(/on 3\.13\.0–3\.13\.5 and fails from 3\.13\.6/);
  });

  it('the default delivery limit of quorum queues, offline too: from 4.0', async () => {
    const doc = { queues: [queue('a', { 'x-queue-type': 'quorum' }), queue('b', { 'x-queue-type': 'quorum' })] };
    const { r } = await findings(doc, '4.0.5');
    expect(r.findings.map((f) => [f.check, f.queues])).toEqual([['quorum-default-delivery-limit', ['a', 'b']]]);
    expect(r.findings[0]?.problem).toMatch(/dropped at its 21st return \(after 21 deliveries/);
    expect((await findings(doc, '3.13.7')).list).toEqual([]);
  });
});

describe('policies as the broker applies them', () => {
  const policy = (
    name: string,
    pattern: string,
    priority: number,
    definition: Record<string, unknown>,
    applyTo = 'queues',
  ) => ({
    vhost: '/',
    name,
    pattern,
    'apply-to': applyTo,
    priority,
    definition,
  });

  it('a policy with a key the queue type refuses does not apply at all: the next one does (measured on 4.3.6 and 3.10.8)', async () => {
    const doc = {
      rabbit_version: '4.3.6',
      policies: [
        policy('alo', '^pol\\.', 1, {
          'dead-letter-exchange': 'dlx',
          'dead-letter-strategy': 'at-least-once',
          overflow: 'reject-publish',
        }),
        policy('low', '^pol\\.', 0, { 'message-ttl': 1000 }),
      ],
      exchanges: [{ name: 'dlx', vhost: '/', type: 'fanout' }],
      queues: [queue('pol.classic', { 'x-queue-type': 'classic' }), queue('pol.quorum', { 'x-queue-type': 'quorum' })],
    };
    const { r, list } = await findings(doc);
    expect(r.snapshot.queues.map((q) => [q.name, q.policyName])).toEqual([
      ['pol.classic', 'low'],
      ['pol.quorum', 'alo'],
    ]);
    expect(list).toContainEqual(['policy-not-applied', 'alo', 'warning']);
    expect(r.findings.find((f) => f.check === 'policy-not-applied')?.problem).toMatch(
      /holds dead-letter-strategy, which pol\.classic \(classic queues\) do not support: none of its keys/,
    );
  });

  it('policies do not merge: a higher priority one that lacks a key loses it; a tie is undefined', async () => {
    const doc = {
      policies: [
        policy('ttl', '^work', 5, { 'message-ttl': 60000 }),
        policy('dl', '^work', 0, { 'dead-letter-exchange': 'dlx' }),
        policy('twin', '^work', 5, { 'max-length': 5 }),
      ],
      queues: [queue('work')],
    };
    const { r } = await findings(doc);
    const lost = r.findings.filter((f) => f.check === 'policy-not-applied');
    expect(lost.map((f) => [f.object.name, f.severity, f.evidence.lostKeys])).toEqual([
      ['twin', 'warning', ['max-length']],
      ['dl', 'warning', ['dead-letter-exchange']],
    ]);
    expect(lost[0]?.problem).toMatch(/the same priority \(5\).*which one applies is not defined/);
    expect(lost[1]?.problem).toMatch(
      /^it applies to no queue: policy 'ttl' of higher priority applies to work instead/,
    );
  });

  it('users the import refuses (put_user): no name, both password and hash, limits not whole numbers (failing_case19)', async () => {
    const user = (name: string | undefined, more: Record<string, unknown> = {}) => ({
      ...(name === undefined ? {} : { name }),
      password_hash: 'h',
      tags: [],
      ...more,
    });
    const doc = {
      users: [
        user('ok', { limits: { 'max-connections': 10, 'max-channels': 2 } }),
        user('none', { limits: {} }),
        user('empty', { limits: [] }),
        user('limited_guest', { limits: { 'max-connections': 'twomincepies' } }),
        user('odd', { limits: { 'max-queues': 1 } }),
        user('both', { password: 'p' }),
        { username: 'keycloak-shaped' },
      ],
    };
    const s = await read(doc);
    expect(s.file!.invalid.map((i) => [i.name, i.reason])).toEqual([
      ['limited_guest', 'its limit max-connections is twomincepies, not a whole number'],
      ['odd', "its limits hold 'max-queues', which is not a user limit (max-connections, max-channels)"],
      ['both', 'it has both password and password_hash'],
      ['(unnamed)', 'it has no name'],
    ]);
    expect((await findings(doc)).list.map((f) => f[0])).toEqual(Array(4).fill('definitions-invalid'));
  });

  it('a pattern the broker refuses is an error; one that needs backtracking is reported, not run (review D8: 91 s)', async () => {
    const doc = {
      policies: [
        policy('bad', '(', 0, {}),
        policy('backref', '(a)\\1', 0, {}),
        policy('redos', '^(a+)+$', 0, { 'max-length': 1 }),
      ],
      queues: [queue('a'.repeat(34) + '!')],
    };
    const cpu = process.cpuUsage();
    const { list } = await findings(doc);
    const used = process.cpuUsage(cpu);
    expect((used.user + used.system) / 1000).toBeLessThan(2000);
    expect(list).toEqual([
      ['policy-pattern-invalid', 'bad', 'error'],
      ['policy-pattern-invalid', 'backref', 'info'],
    ]);
  });
});
