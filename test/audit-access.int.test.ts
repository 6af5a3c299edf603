/**
 * `mqlab audit` reads and never writes: as a monitoring-only user through a recording proxy (every
 * request a GET); offline from a definitions export written by `rabbitmqctl export_definitions`; and
 * bad input — an HTML page at the URL, a 401, a timeout, an unreachable port, a truncated or foreign
 * file — is one line and exit 2, with no stack and no password.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import amqp from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AT, CONFIG, mqlab, useNamespace } from './helpers.js';
import { recordedBackend } from '../src/services/data-folder.js';
import { deleteBrokerUser, putBrokerUser } from '../src/services/admin.js';
import { existingServiceDir, hostOf, outer, run } from '../src/services/host.js';
import { rabbitAccount, rabbitEnv } from '../src/services/rabbitmq-node.js';
import { auditErrors } from './audit-validate.js';
import { fakeServer, recordingProxy, type AuditDoc } from './audit-support.js';

const n = useNamespace(import.meta.url);
const NS = n.namespace;
const USER = `${NS}_monitor`;
const PASSWORD = 'Monitor-secret-42';
const LOOP = n.q('loop');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-audit-'));

beforeAll(async () => {
  // a dead-letter loop to find, live and offline
  const conn = await amqp.connect(CONFIG.amqpUrl);
  const ch = await conn.createChannel();
  await ch.assertExchange(n.x('dlx'), 'direct', { durable: true });
  await ch.assertQueue(LOOP, {
    durable: true,
    arguments: { 'x-queue-type': 'quorum', 'x-dead-letter-exchange': n.x('dlx'), 'x-dead-letter-routing-key': 'k' },
  });
  await ch.bindQueue(LOOP, n.x('dlx'), 'k');
  await conn.close();
  await putBrokerUser(CONFIG, { user: USER, password: PASSWORD, tags: ['monitoring'] });
});

afterAll(async () => {
  await deleteBrokerUser(CONFIG, USER).catch(() => {});
  const conn = await amqp.connect(CONFIG.amqpUrl);
  const ch = await conn.createChannel();
  await ch.deleteQueue(LOOP);
  await ch.deleteExchange(n.x('dlx'));
  await conn.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const loopFinding = (doc: { findings: { check: string; object: { name: string } }[] }) =>
  doc.findings.filter((f) => f.check === 'dead-letter-loop' && f.object.name === LOOP);

describe('read-only', () => {
  it('a monitoring-only user audits the vhost, and every request it makes is a GET', async () => {
    const proxy = await recordingProxy(new URL(CONFIG.mgmtUrl));
    try {
      const url = `http://${USER}:${PASSWORD}@127.0.0.1:${proxy.port}`;
      // without permissions on the vhost the broker hides it (4.3: 401, 3.10: 404): one line saying what to do
      const hidden = await mqlab(['audit', '--mgmt-url', url, '--vhost', CONFIG.vhost]);
      expect(hidden.code, hidden.stderr).toBe(2);
      expect(hidden.stderr).toMatch(
        new RegExp(
          `(may not see vhost ${CONFIG.vhost} \\(HTTP 401|no vhost ${CONFIG.vhost} that the user can see).*\\n.*set_permissions`,
        ),
      );
      // permissions that allow nothing (empty patterns) make the vhost visible: it can read no message, declare nothing
      await putBrokerUser(CONFIG, {
        user: USER,
        password: PASSWORD,
        tags: ['monitoring'],
        permissions: { configure: '', write: '', read: '' },
      });
      const hiddenRequests = proxy.requests.length;
      const r = await mqlab(['audit', '--mgmt-url', url, '--vhost', CONFIG.vhost, '--json']);
      expect([0, 1], r.stderr).toContain(r.code);
      const doc = JSON.parse(r.stdout) as AuditDoc;
      expect(auditErrors(doc)).toBe('');
      expect(loopFinding(doc)).toHaveLength(1);
      expect(doc.source.url).toBe(`http://${USER}:***@127.0.0.1:${proxy.port}`);
      expect(r.stdout + r.stderr).not.toContain(PASSWORD);
      expect(proxy.requests.length - hiddenRequests).toBe(doc.timings.requests);
      expect(proxy.requests.length).toBeGreaterThan(5);
      expect(proxy.requests.filter((q) => q.method !== 'GET')).toEqual([]);
      // the text form, every vhost the user sees: also GETs only
      const before = proxy.requests.length;
      const all = await mqlab(['audit', '--mgmt-url', url]);
      expect(all.lines[0]).toMatch(/^audit: RabbitMQ \d+\.\d+\.\d+ from the management API http:\/\/.*:\*\*\*@/);
      expect(proxy.requests.length).toBeGreaterThan(before);
      expect(proxy.requests.filter((q) => q.method !== 'GET')).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});

describe('offline', () => {
  it('a definitions export written by rabbitmqctl export_definitions audits offline; live-only checks say SKIP', async () => {
    const backend = recordedBackend(CONFIG.home);
    if (backend !== 'chroot' && backend !== 'system')
      throw new Error(`this test runs rabbitmqctl of mqlab's own node (chroot or system backend), not ${backend}`);
    const host = hostOf(CONFIG, backend);
    const dir = existingServiceDir(host, 'rabbitmq');
    expect(dir).not.toBeNull();
    const ctl = ['/usr/lib/rabbitmq/bin/rabbitmqctl', '/usr/sbin/rabbitmqctl'].find((p) =>
      fs.existsSync(outer(host, p)),
    )!;
    const inner = path.join(dir!, `${NS}-definitions.json`);
    const x = await run(
      host,
      rabbitAccount(host),
      ctl,
      ['export_definitions', inner],
      rabbitEnv(dir!, CONFIG.ports),
      '/',
    );
    expect(x.exitCode, `${x.stdout}\n${x.stderr}`).toBe(0);
    const file = path.join(tmp, 'definitions.json');
    fs.copyFileSync(outer(host, inner), file);
    fs.rmSync(outer(host, inner));

    const r = await mqlab(['audit', file, '--vhost', CONFIG.vhost, '--json', '--fail-on', 'never']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as AuditDoc;
    expect(auditErrors(doc)).toBe('');
    expect(doc).toMatchObject({
      source: { kind: 'definitions', file },
      objects: { consumers: null, channels: null, nodes: null },
      timings: { requests: 0 },
    });
    expect(doc.broker.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(loopFinding(doc)).toHaveLength(1);
    const skipped = doc.checks.filter((c) => c.status === 'skipped');
    expect(skipped.map((c) => c.id)).toContain('consumer-auto-ack');
    // the live-only checks skip as such; others may skip for the line (3.10.8: no default delivery limit)
    expect(
      skipped.filter((c) => /^needs (live statistics|the cluster)/.test(c.skipped ?? '')).map((c) => c.id),
    ).toContain('consumer-auto-ack');
    const text = await mqlab(['audit', file, '--vhost', CONFIG.vhost]);
    expect(text.code).toBe(1); // the loop is an error
    expect(text.lines[0]).toMatch(/^audit: RabbitMQ \d+\.\d+\.\d+ from the definitions file .* \(offline\); vhost /);
    // one SKIP line per reason, naming its checks
    expect(text.stdout).toMatch(/^SKIP [a-z-, ]*\bconsumer-auto-ack\b[a-z-, ]*: needs live statistics/m);
  });
});

describe('bad input: one line, exit 2, no stack, no password', () => {
  const oneLine = (r: { code: number; stdout: string; stderr: string }, pattern: RegExp) => {
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(pattern);
    expect(lines.length).toBeLessThanOrEqual(2); // the cause, then what to do
    expect(r.stderr).not.toMatch(/\n\s+at |secret-pw/);
  };

  it('refused credentials (401) from the real broker', async () => {
    oneLine(
      await mqlab(['audit', '--mgmt-url', `http://nobody:secret-pw@${AT.mgmt}`]),
      /^mqlab: management API at http:\/\/nobody:\*\*\*@.*: credentials refused \(HTTP 401\)$/,
    );
  });

  it('an HTML page at the URL', async () => {
    const page = await fakeServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body>Sign in</body></html>'),
    );
    try {
      oneLine(
        await mqlab(['audit', '--mgmt-url', `http://u:secret-pw@127.0.0.1:${page.port}`]),
        /answered GET \/api\/overview with an HTML page \(HTTP 200\), not the management API's JSON$/,
      );
    } finally {
      await page.close();
    }
  });

  it('a server that never answers: a timeout', async () => {
    const silent = await fakeServer(() => {});
    try {
      oneLine(
        await mqlab(['audit', '--mgmt-url', `http://u:secret-pw@127.0.0.1:${silent.port}`, '--timeout', '0.5']),
        /: no answer within 0\.5 s \(GET \/api\/overview\)$/,
      );
    } finally {
      await silent.close();
    }
  });

  it('nothing listening; a vhost that does not exist', async () => {
    const closed = await fakeServer(() => {});
    const port = closed.port;
    await closed.close();
    oneLine(
      await mqlab(['audit', '--mgmt-url', `http://u:secret-pw@127.0.0.1:${port}`]),
      /: unreachable \(connection refused\)$/,
    );
    oneLine(
      await mqlab(['audit', '--vhost', `${NS}-no-such-vhost`]),
      /: no vhost auditaccess-no-such-vhost that the user can see$/,
    );
  });

  it('a truncated export, foreign JSON, a file and a URL at once, a bad --fail-on', async () => {
    const good = JSON.stringify({ rabbit_version: '4.3.6', queues: [], exchanges: [], bindings: [] });
    fs.writeFileSync(path.join(tmp, 'truncated.json'), good.slice(0, 30));
    fs.writeFileSync(path.join(tmp, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0' }));
    oneLine(
      await mqlab(['audit', path.join(tmp, 'truncated.json')]),
      /truncated\.json is not valid JSON .*: a truncated or damaged export\?$/,
    );
    oneLine(
      await mqlab(['audit', path.join(tmp, 'package.json')]),
      /package\.json is not a RabbitMQ definitions export/,
    );
    oneLine(
      await mqlab(['audit', path.join(tmp, 'package.json'), '--mgmt-url', 'http://u:secret-pw@h:15672']),
      /give a definitions file or --mgmt-url, not both$/,
    );
    oneLine(await mqlab(['audit', '--fail-on', 'fatal']), /invalid --fail-on 'fatal'$/);
    oneLine(
      await mqlab(['audit', path.join(tmp, 'package.json'), '--target-version', 'latest']),
      /invalid --target-version 'latest'$/,
    );
  });

  it('a device, /dev/zero, is refused before it is read (review D18: it hung); --json says "result": "error"', async () => {
    oneLine(await mqlab(['audit', '/dev/zero']), /\/dev\/zero is not a regular file \(a device, FIFO or socket\)$/);
    fs.writeFileSync(path.join(tmp, 'not-export.json'), JSON.stringify({ name: 'app', version: '1.0.0' }));
    const r = await mqlab(['audit', path.join(tmp, 'not-export.json'), '--json']);
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.stdout) as { result: string; error: { kind: string; message: string } };
    expect(auditErrors(doc)).toBe('');
    expect(doc).toMatchObject({ result: 'error', error: { kind: 'usage' } });
    expect(doc.error.message).toMatch(/is not a RabbitMQ definitions export/);
  });
});
