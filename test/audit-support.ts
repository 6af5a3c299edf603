/** Helpers for the audit's integration tests: run `mqlab audit --json`, wait for a finding, record HTTP methods. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { CONFIG, mqlab } from './helpers.js';
import { auditErrors } from './audit-validate.js';

export interface AuditFinding {
  check: string;
  severity: string;
  vhost: string;
  object: { kind: string; name: string; queue?: string };
  problem: string;
  lab: string;
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

/** the findings about the objects of namespace `ns` (a queue, or a consumer's queue) */
export const findingsOf = (doc: AuditDoc, ns: string) =>
  doc.findings.filter((f) => (f.object.queue ?? f.object.name).startsWith(`${ns}.`));

/**
 * audit until `ok` holds for the findings (statistics are sampled every few seconds): the last
 * document; fails the test after `timeoutMs` with the findings it saw
 */
export async function auditUntil(
  ok: (findings: AuditFinding[]) => boolean,
  select: (doc: AuditDoc) => AuditFinding[],
  timeoutMs = 45_000,
): Promise<AuditFinding[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const found = select(await auditDoc());
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
