import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { CLI } from './helpers.js';
import { registry } from '../labs/registry.js';
import { atLeast } from '../src/broker/capabilities.js';

describe('mqlab all', () => {
  it('runs every lab in order; --json is one whole document and --junit one testcase per check', async () => {
    const junit = `/tmp/mqlab-all-${process.pid}.junit.xml`;
    // the document is far larger than a pipe's 64 KiB: read it through a slow reader, as a CI step
    // piping into another program would, and it must still arrive whole
    const r = await execa('bash', ['-c', `set -o pipefail; node ${CLI} all --json --junit ${junit} | (sleep 1; cat)`], {
      reject: false,
      env: { NO_COLOR: '1' },
    });
    const doc = JSON.parse(r.stdout);
    // a lab that needs a newer broker is skipped, never passed (delayed-retry needs 4.3)
    const skipped = doc.labs.filter((l: { status: string }) => l.status === 'skipped').map((l: { lab: string }) => l.lab);
    expect(skipped).toEqual(atLeast(doc.broker.version, 4, 3) ? [] : ['delayed-retry']);
    const failed = doc.labs.filter((l: { status: string }) => l.status !== 'passed' && l.status !== 'skipped').map((l: { lab: string; error?: string }) => `${l.lab}: ${l.error ?? 'failed checks'}`);
    expect(r.exitCode, failed.join('\n') + r.stderr).toBe(0);
    expect(doc.result).toBe('passed');
    expect(doc.labs.map((l: { lab: string }) => l.lab)).toEqual(registry.map((l) => l.name));
    expect(doc.broker.version).toMatch(/^\d+\.\d+\.\d+/);
    const checks = doc.labs.reduce((n: number, l: { checks: unknown[] }) => n + l.checks.length, 0);
    const xml = fs.readFileSync(junit, 'utf8');
    expect(xml.match(/<testcase /g)?.length).toBe(checks + skipped.length);
    expect(xml.match(/<skipped /g)?.length ?? 0).toBe(skipped.length);
    expect(xml.match(/<testsuite /g)?.length).toBe(registry.length);
    expect(xml).not.toContain('<failure');
  });
});
