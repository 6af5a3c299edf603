/**
 * A service lost during a run is an environment error, not a failed experiment.
 * A TCP proxy sits between the CLI and the real service (the shared services keep running);
 * cutting it mid-run (every connection reset, new ones refused) is, from the client's side,
 * the service dying. The cut is triggered by what the run printed, not by a fixed sleep.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { CLI, ROOT, CONFIG, PORT, useNamespace } from './helpers.js';

const NS = useNamespace(import.meta.url).namespace;
import { tcpProxy, viaPort, type TcpProxy } from './tcp-proxy.js';
import { ACCOUNTS } from '../src/core/defaults.js';
import { adminPassword } from '../src/core/account-secrets.js';
import { namesFor } from '../src/core/names.js';
import { names as crashNames } from '../labs/consumer-crash/names.js';
import { parseRun } from './report.js';

const SECRETS = [ACCOUNTS.app.password, ACCOUNTS.admin.password, adminPassword(CONFIG.home)];
let proxy: TcpProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

interface Case {
  lab: string;
  service: string;
  port: number;
  env: (port: number) => Record<string, string>;
  extra?: string[];
  /** cut when stderr holds this … */
  cutAfter: string;
  /** … and, when given, once this holds too (observed through the proxy) */
  alsoWait?: (p: TcpProxy, acceptedAtMark: number) => boolean;
  says: RegExp;
}

const cases: Case[] = [
  {
    lab: 'retry',
    service: 'RabbitMQ',
    port: PORT.amqp,
    env: (port) => ({ MQLAB_AMQP_URL: viaPort(CONFIG.amqpUrl, port) }),
    cutAfter: 'status=retry_confirmed',
    says: /^mqlab: RabbitMQ at amqp:\/\/app:\*\*\*@127\.0\.0\.1:\d+\/lab: connection lost during the run/,
  },
  {
    lab: 'consumer-crash',
    service: 'PostgreSQL',
    port: PORT.postgres,
    // the password in the query string, as libpq takes it: it must not be printed either
    env: (port) => ({ MQLAB_PG_URL: `postgres://app@127.0.0.1:${port}/lab?password=${ACCOUNTS.app.password}` }),
    extra: ['--gate-ms', '1500'],
    // the first consumer process started and connected to the database through the proxy
    cutAfter: 'consumer-crash: consumer-run1:',
    alsoWait: (p, mark) => p.accepted() > mark,
    says: /^mqlab: PostgreSQL at postgres:\/\/app@127\.0\.0\.1:\d+\/lab\?password=\*\*\*: .*(lost|unreachable)/,
  },
  {
    lab: 'hold',
    service: 'RabbitMQ management API',
    port: PORT.management,
    env: (port) => ({ MQLAB_MGMT_URL: viaPort(CONFIG.mgmtUrl, port) }),
    cutAfter: 'status=applied',
    says: /^mqlab: RabbitMQ management API at http:\/\/mqlab-admin:\*\*\*@127\.0\.0\.1:\d+: (unreachable \(connection refused\)|connection lost)/,
  },
];

describe('a service lost during a run', () => {
  for (const c of cases) {
    it(`${c.service} lost during ${c.lab}: exit 2 at once, one line, json and junit say error; the next run passes`, async () => {
      proxy = await tcpProxy(c.port);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mqlab-lost-${c.lab}-`));
      const junit = path.join(dir, 'junit.xml');
      const env = { ...process.env, NO_COLOR: '1', MQLAB_NAMESPACE: NS, ...c.env(proxy.port) };
      const args = [CLI, c.lab, '-v', '--json', '--junit', junit, '--out', path.join(dir, 'out'), ...(c.extra ?? [])];
      const child = execa('node', args, { reject: false, env });
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      const end = Date.now() + 60_000;
      let mark = -1;
      while (Date.now() < end && child.exitCode === null) {
        if (mark < 0 && stderr.includes(c.cutAfter)) mark = proxy.accepted();
        if (mark >= 0 && (!c.alsoWait || c.alsoWait(proxy, mark))) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(child.exitCode, `the run ended before the cut:\n${stderr}`).toBeNull();
      const cutAt = Date.now();
      await proxy.cut();
      const r = await child;
      const noticedMs = Date.now() - cutAt;

      expect(r.exitCode, r.stdout + r.stderr).toBe(2);
      expect(noticedMs).toBeLessThan(5_000); // at once: not a lab's timeout (20 s, 30 s, 240 s)
      const own = r.stderr.split('\n').filter((l) => l.startsWith('mqlab:'));
      expect(own, r.stderr).toHaveLength(1);
      expect(own[0]).toMatch(c.says);
      expect(r.stderr).toMatch(/^ {2}→ run `mqlab up`.*re-run/m);
      expect(r.stderr).not.toMatch(/^\s+at /m);
      const doc = parseRun(r.stdout);
      expect(doc.result).toBe('error');
      expect(doc.labs[0]).toMatchObject({
        lab: c.lab,
        status: 'error',
        outcome: 'error',
        error: { kind: 'environment', service: c.service },
      });
      const xml = fs.readFileSync(junit, 'utf8');
      expect(xml).toContain(`<error type="environment: ${c.service}"`);
      expect(xml).not.toContain('<failure');
      const files = fs.readdirSync(path.join(dir, 'out')).map((f) => fs.readFileSync(path.join(dir, 'out', f), 'utf8'));
      for (const text of [r.stdout, r.stderr, xml, ...files]) for (const s of SECRETS) expect(text).not.toContain(s);

      // the service is back: the next run starts clean and passes
      await proxy.restore();
      const again = await execa('node', [CLI, c.lab, ...(c.extra ?? [])], { reject: false, env });
      expect(again.exitCode, again.stdout + again.stderr).toBe(0);
      expect(again.stdout.trim().split('\n').pop()).toBe('RESULT: all assertions passed');
    });
  }
});

describe("a lab's child process that loses a service", () => {
  const consumer = path.join(ROOT, 'dist', 'labs', 'consumer-crash', 'consumer.js');
  const childEnv = (amqpPort: number) => ({
    ...process.env,
    MQLAB_AMQP_URL: viaPort(CONFIG.amqpUrl, amqpPort),
    MQLAB_NAMESPACE: NS,
    MQLAB_LAB: 'consumer-crash',
    MQLAB_PROCESS: 'consumer-test',
    // what runChild hands a child: the lab's names, built by the parent (the run above declared the queue)
    MQLAB_LAB_NAMES: JSON.stringify(crashNames(namesFor({ ...CONFIG, namespace: NS }))),
  });
  const expectLostLine = (r: { exitCode?: number; stderr: string; stdout: string }, service: string) => {
    expect(r.exitCode, r.stderr).toBe(75); // CHILD_LOST_EXIT: runChild turns it into an environment error
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^\\[lost\\] service=${service} cause=`)),
    ]);
    for (const s of SECRETS) expect(r.stdout + r.stderr).not.toContain(s);
  };

  it('exits 75 with one [lost] line when its database refuses at the start', async () => {
    const r = await execa('node', [consumer, '--expect', '1', '--gate-ms', '0'], {
      reject: false,
      env: { ...childEnv(PORT.amqp), MQLAB_PG_URL: `postgres://app:${ACCOUNTS.app.password}@127.0.0.1:1/lab` },
    });
    expectLostLine(r, 'PostgreSQL');
  });

  it('exits 75 at once when its broker connection is cut while it waits for messages', async () => {
    proxy = await tcpProxy(PORT.amqp);
    const child = execa('node', [consumer, '--expect', '1000', '--timeout-ms', '60000', '--gate-ms', '0'], {
      reject: false,
      env: childEnv(proxy.port),
    });
    const end = Date.now() + 30_000;
    while (proxy.accepted() === 0 && Date.now() < end && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300)); // let it open its channel and start consuming
    const cutAt = Date.now();
    await proxy.cut();
    const r = await child;
    expect(Date.now() - cutAt).toBeLessThan(5_000);
    expectLostLine(r, 'RabbitMQ');
  });
});
