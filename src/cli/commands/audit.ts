/**
 * `mqlab audit [definitions.json]`: the labs' pitfalls looked for on a broker, read-only — through
 * the management API (GET only) or offline from a definitions export. Exit 1 when a finding is at or
 * above --fail-on, 0 otherwise; usage and environment errors are exit 2 (main.ts).
 */
import { loadConfig } from '../../core/config.js';
import { UsageError } from '../../core/errors.js';
import { checkOutputPaths, writeOutput } from '../../report/out-files.js';
import { SEVERITIES, type Severity } from '../../audit/finding.js';
import { managementReader } from '../../audit/http.js';
import { readLive } from '../../audit/live.js';
import { readDefinitions } from '../../audit/definitions.js';
import { audit } from '../../audit/run-audit.js';
import { auditJson, auditJunit, renderText, type Timings } from '../../audit/output.js';

export interface AuditFlags {
  mgmtUrl?: string;
  vhost?: string;
  json?: boolean;
  junit?: string;
  failOn: string;
  timeout: string;
}

export function parseFailOn(raw: string): Severity | 'never' {
  if ((SEVERITIES as readonly string[]).includes(raw) || raw === 'never') return raw as Severity | 'never';
  throw new UsageError(`invalid --fail-on '${raw}'`, 'use error (the default), warning, info or never');
}

function parseTimeout(raw: string): number {
  const s = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(s > 0 && s <= 600))
    throw new UsageError(
      `invalid --timeout '${raw}'`,
      'give the seconds one request may take, from 0.1 to 600 (default 30)',
    );
  return s * 1000;
}

export async function auditCommand(file: string | undefined, o: AuditFlags): Promise<number> {
  const failOn = parseFailOn(o.failOn);
  const timeoutMs = parseTimeout(o.timeout);
  if (o.vhost === '') throw new UsageError('--vhost is empty', 'give a vhost name, e.g. --vhost / or --vhost lab');
  if (file !== undefined && o.mgmtUrl !== undefined)
    throw new UsageError(
      'give a definitions file or --mgmt-url, not both',
      'mqlab audit FILE reads the file offline; mqlab audit --mgmt-url URL reads a running broker',
    );
  checkOutputPaths({ junit: o.junit });
  const t0 = performance.now();
  let requests = 0;
  let snapshot;
  if (file !== undefined) snapshot = readDefinitions(file, o.vhost);
  else {
    const url = loadConfig({ mgmtUrl: o.mgmtUrl }).mgmtUrl;
    const http = managementReader(url, timeoutMs);
    snapshot = await readLive(http, { url, vhost: o.vhost, progress: throttled() });
    requests = http.requests;
  }
  const t1 = performance.now();
  const result = audit(snapshot, failOn);
  const timings: Timings = { readMs: t1 - t0, checkMs: performance.now() - t1, requests };
  process.stderr.write(
    `audit: read ${snapshot.queues.length} queue(s) in ${(timings.readMs / 1000).toFixed(1)} s (${requests} GET request(s)), checked in ${(timings.checkMs / 1000).toFixed(1)} s\n`,
  );
  if (o.junit !== undefined) writeOutput(o.junit, auditJunit(result, timings));
  process.stdout.write(
    o.json ? JSON.stringify(auditJson(result, timings), null, 2) + '\n' : renderText(result).join('\n') + '\n',
  );
  return result.failed ? 1 : 0;
}

/** progress lines on stderr, at most one every 500 ms (the last one always) */
function throttled(): (line: string) => void {
  let last = 0;
  return (line) => {
    const now = Date.now();
    if (now - last < 500) return;
    last = now;
    process.stderr.write(line + '\n');
  };
}
