import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mqlab } from './helpers.js';
import { registry } from '../labs/registry.js';

describe('mqlab all', () => {
  it('runs every lab in order; --json is one whole document and --junit one testcase per check', async () => {
    const junit = `/tmp/mqlab-all-${process.pid}.junit.xml`;
    const r = await mqlab(['all', '--json', '--junit', junit]);
    // the document is far larger than a pipe's 64 KiB: it must arrive whole
    const doc = JSON.parse(r.stdout);
    const failed = doc.labs.filter((l: { status: string }) => l.status !== 'passed').map((l: { lab: string; error?: string }) => `${l.lab}: ${l.error ?? 'failed checks'}`);
    expect(r.code, failed.join('\n') + r.stderr).toBe(0);
    expect(doc.result).toBe('passed');
    expect(doc.labs.map((l: { lab: string }) => l.lab)).toEqual(registry.map((l) => l.name));
    expect(doc.broker.version).toMatch(/^\d+\.\d+\.\d+/);
    const checks = doc.labs.reduce((n: number, l: { checks: unknown[] }) => n + l.checks.length, 0);
    const xml = fs.readFileSync(junit, 'utf8');
    expect(xml.match(/<testcase /g)?.length).toBe(checks);
    expect(xml.match(/<testsuite /g)?.length).toBe(registry.length);
    expect(xml).not.toContain('<failure');
  });
});
