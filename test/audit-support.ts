/** Helpers for the audit's integration tests: run `mqlab audit --json`, wait for a finding, record HTTP methods. */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { recordedBackend } from '../src/services/data-folder.js';
import { existingServiceDir, hostOf, outer, run } from '../src/services/host.js';
import { rabbitAccount, rabbitEnv } from '../src/services/rabbitmq-node.js';
import { expect } from 'vitest';
import { CONFIG, mqlab } from './helpers.js';
import { auditErrors } from './audit-validate.js';

export interface AuditFinding {
  check: string;
  severity: string;
  vhost: string;
  object: { kind: string; name: string; queue?: string };
  /** every queue the cause hits, when more than the object */
  queues?: string[];
  problem: string;
  lab: string | null;
  fix: string;
  evidence: Record<string, unknown>;
}

export interface AuditDoc {
  result: string;
  source: { kind: string; url?: string; file?: string };
  broker: { product: string; version: string };
  timings: { requests: number };
  checks: { id: string; status: string; skipped?: string }[];
  findings: AuditFinding[];
}

/** `mqlab audit --vhost <lab vhost> --json` (valid by docs/audit.schema.json), with more args */
export async function auditDoc(args: string[] = [], env: Record<string, string> = {}): Promise<AuditDoc> {
  const r = await mqlab(['audit', '--vhost', CONFIG.vhost, '--json', '--fail-on', 'never', ...args], env, 120_000);
  expect(r.code, r.stderr).toBe(0);
  const doc = JSON.parse(r.stdout) as AuditDoc;
  expect(auditErrors(doc)).toBe('');
  return doc;
}

/** the findings about the objects of namespace `ns` (a queue, a consumer's queue, an exchange or policy, or listing its queues) */
export const findingsOf = (doc: AuditDoc, ns: string) =>
  doc.findings.filter((f) =>
    [f.object.queue ?? f.object.name, ...(f.queues ?? [])].some(
      (n) => n.startsWith(`${ns}.`) || n.startsWith(`${ns}-`),
    ),
  );

/**
 * audit until `ok` holds for the findings (statistics are sampled every few seconds): the last
 * document; fails the test after `timeoutMs` with the findings it saw
 */
export async function auditUntil(
  ok: (findings: AuditFinding[]) => boolean,
  select: (doc: AuditDoc) => AuditFinding[],
  timeoutMs = 45_000,
  args: string[] = [],
): Promise<AuditFinding[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const found = select(await auditDoc(args));
    if (ok(found)) return found;
    if (Date.now() > end) {
      expect.fail(
        `no audit within ${timeoutMs / 1000} s showed what the test waits for; the last findings: ${JSON.stringify(found.map((f) => [f.check, f.object]))}`,
      );
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** an HTTP proxy to the management API that records every request's method and path */
export async function recordingProxy(
  target: URL,
): Promise<{ port: number; requests: { method: string; path: string }[]; close(): Promise<void> }> {
  const requests: { method: string; path: string }[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '?', path: req.url ?? '' });
    const up = http.request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  // an idle connection is not closed under a run (Node's 5 s default): a close crossing a request made
  // the client send it again on a new connection, and the proxy counted one request twice (load 15)
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** a local HTTP server answering every request with `handler` (an HTML page, silence) */
export async function fakeServer(handler: http.RequestListener): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * rabbitmqctl of mqlab's own node (chroot or system backend), as the service account: `args`, with
 * `files` written into the node's folder first (their names replaced in `args` by the node's paths)
 * and removed after. The node's CLI, not the management API: an import or a vhost needs an
 * administrator, which the management account need not be.
 */
export async function rabbitmqctl(
  args: string[],
  files: Record<string, string> = {},
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const backend = recordedBackend(CONFIG.home);
  if (backend !== 'chroot' && backend !== 'system')
    throw new Error(`this test runs rabbitmqctl of mqlab's own node (chroot or system backend), not ${backend}`);
  const host = hostOf(CONFIG, backend);
  const dir = existingServiceDir(host, 'rabbitmq');
  if (!dir) throw new Error('no rabbitmq folder in the data folder: run mqlab up');
  const ctl = ['/usr/lib/rabbitmq/bin/rabbitmqctl', '/usr/sbin/rabbitmqctl'].find((p) =>
    fs.existsSync(outer(host, p)),
  )!;
  const inner = (name: string) => path.join(dir, `audit-${process.pid}-${name}`);
  for (const [name, content] of Object.entries(files)) {
    fs.writeFileSync(outer(host, inner(name)), content);
    fs.chmodSync(outer(host, inner(name)), 0o644);
  }
  try {
    const argv = args.map((a) => (a in files ? inner(a) : a));
    const r = await run(host, rabbitAccount(host), ctl, argv, rabbitEnv(dir, CONFIG.ports), '/');
    return { exitCode: r.exitCode ?? 1, stdout: String(r.stdout), stderr: String(r.stderr) };
  } finally {
    for (const name of Object.keys(files)) fs.rmSync(outer(host, inner(name)), { force: true });
  }
}

/** a file the node wrote (export_definitions), read from the host */
export async function exportDefinitions(): Promise<unknown> {
  const backend = recordedBackend(CONFIG.home);
  const host = hostOf(CONFIG, backend as 'chroot' | 'system');
  const dir = existingServiceDir(host, 'rabbitmq')!;
  const name = `audit-${process.pid}-export.json`;
  const r = await rabbitmqctl(['export_definitions', path.join(dir, name)]);
  if (r.exitCode !== 0) throw new Error(`export_definitions: ${r.stdout}\n${r.stderr}`);
  const file = outer(host, path.join(dir, name));
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  } finally {
    fs.rmSync(file, { force: true });
  }
}
