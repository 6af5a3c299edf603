/**
 * `mqlab audit [definitions.json]`: the labs' pitfalls looked for on a broker, read-only — through
 * the management API (GET only) or offline from a definitions export — judged for a RabbitMQ line
 * (--target-version, else the version the source names, else 4.3). Exit 1 when a finding is at or
 * above --fail-on, 0 otherwise; usage and environment errors are exit 2 (main.ts), with --json a
 * document saying "result": "error".
 */
import { loadConfig } from '../../core/config.js';
import { MqlabError, UsageError } from '../../core/errors.js';
import { checkOutputPaths, writeOutput } from '../../report/out-files.js';
import { SEVERITIES, type Severity } from '../../audit/finding.js';
import { managementReader } from '../../audit/http.js';
import { readLive } from '../../audit/live.js';
import { checkExport, fromDefinitions } from '../../audit/definitions.js';
import { readJsonFile } from '../../audit/read-file.js';
import { audit, type AuditResult } from '../../audit/run-audit.js';
import { auditErrorJson, auditJson, auditJunit, renderText, type Timings } from '../../audit/output.js';
import { DEFAULT_TARGET, exactVersion, parseTarget, parseVersion } from '../../audit/target.js';
import { ticker } from '../../audit/ticker.js';
import type { Snapshot } from '../../audit/snapshot.js';

export interface AuditFlags {
  mgmtUrl?: string;
  vhost?: string;
  json?: boolean;
  junit?: string;
  failOn: string;
  timeout: string;
  targetVersion?: string;
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

export async function auditCommand(file: string | undefined, o: AuditFlags, signal?: AbortSignal): Promise<number> {
  try {
    return await run(file, o, signal);
  } catch (err) {
    // a usage or environment error is one line on stderr (main.ts); --json also says so on stdout
    if (o.json && err instanceof MqlabError && err.exitCode === 2)
      process.stdout.write(JSON.stringify(auditErrorJson(err), null, 2) + '\n');
    throw err;
  }
}

async function run(file: string | undefined, o: AuditFlags, signal?: AbortSignal): Promise<number> {
  const failOn = parseFailOn(o.failOn);
  const timeoutMs = parseTimeout(o.timeout);
  const option = o.targetVersion === undefined ? null : parseTarget(o.targetVersion);
  if (o.vhost === '') throw new UsageError('--vhost is empty', 'give a vhost name, e.g. --vhost / or --vhost lab');
  if (file !== undefined && o.mgmtUrl !== undefined)
    throw new UsageError(
      'give a definitions file or --mgmt-url, not both',
      'mqlab audit FILE reads the file offline; mqlab audit --mgmt-url URL reads a running broker',
    );
  checkOutputPaths({ junit: o.junit });
  const tick = ticker(signal);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let requests = 0;
  let snapshot: Snapshot;
  if (file !== undefined) {
    const doc = checkExport(readJsonFile(file), file);
    snapshot = await fromDefinitions(doc, { file, vhost: o.vhost, tick });
  } else {
    const url = loadConfig({ mgmtUrl: o.mgmtUrl }).mgmtUrl;
    const http = managementReader(url, timeoutMs);
    snapshot = await readLive(http, { url, vhost: o.vhost, progress: throttled() });
    requests = http.requests;
  }
  const t1 = performance.now();
  const readCpu = process.cpuUsage(cpu0);
  const cpu = process.cpuUsage();
  const known = parseVersion(snapshot.broker?.version);
  const result: AuditResult = await audit(snapshot, {
    failOn,
    target: option ?? known ?? parseTarget(DEFAULT_TARGET),
    exact: option ? exactVersion(o.targetVersion) : known ? exactVersion(snapshot.broker?.version) : false,
    targetFrom: option ? 'option' : known ? 'source' : 'default',
    tick,
  });
  // CPU time besides wall time: on a machine shared with other work, the wall time says little of the audit
  const timings: Timings = {
    readMs: t1 - t0,
    readCpuMs: cpuMs(readCpu),
    checkMs: performance.now() - t1,
    checkCpuMs: cpuMs(process.cpuUsage(cpu)),
    requests,
  };
  process.stderr.write(
    `audit: read ${snapshot.queues.length} queue(s) in ${(timings.readMs / 1000).toFixed(1)} s (${requests} GET request(s)), checked in ${(timings.checkMs / 1000).toFixed(1)} s (${(timings.checkCpuMs / 1000).toFixed(1)} s of CPU)\n`,
  );
  if (o.junit !== undefined) writeOutput(o.junit, auditJunit(result, timings));
  process.stdout.write(
    o.json ? JSON.stringify(auditJson(result, timings), null, 2) + '\n' : renderText(result).join('\n') + '\n',
  );
  return result.failed ? 1 : 0;
}

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

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
