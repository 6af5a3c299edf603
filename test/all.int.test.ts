import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { CLI, mqlab, startMqlab, useNamespace, useServices } from './helpers.js';
import { reportErrors } from './report-validate.js';
import { registry } from '../labs/registry.js';
import { atLeast } from '../src/broker/capabilities.js';
import { labOptions } from '../src/lab/lab.js';
import { namespaced } from '../src/core/names.js';
import { parseRun } from './report.js';
import { text } from '../src/core/text.js';

// `mqlab all` as a user types it: the one file that runs the labs' own names (no namespace);
// the --jobs runs use t_all_j1, t_all_j2, …
useNamespace('');
const NS = 't_all';
const labNs = (i: number) => `${NS}_j${i + 1}`;
/** the labs that need `mqlab up --nodes 3` (their own suite: *.cluster.int.test.ts) */
const CLUSTER_LABS = ['quorum-failover', 'partition', 'node-pause'];
/**
 * every lab one after the other, two of them restarting a service: about 45 s on an idle 2-core
 * machine, over 120 s at CI's load (every suite at once, load average 11–15)
 */
const ALL_BUDGET_MS = 300_000;
/** these suites run on one node: delayed-retry needs 4.3, the cluster labs a cluster (in registry order) */
const expectedSkips = (version: string) =>
  registry
    .map((l) => l.name)
    .filter((n) => (n === 'delayed-retry' && !atLeast(version, 4, 3)) || CLUSTER_LABS.includes(n));
/**
 * The --jobs runs leave out the labs that stop a service (their own tests and the first run here
 * run them; a broker restart adds 30–70 s to each run): `--skip`, which lists them as SKIP.
 */
const DISRUPTIVE = registry.filter((l) => l.disruptive).map((l) => l.name);
const SKIP_DISRUPTIVE = ['--skip', DISRUPTIVE.join(',')];
const skippedWithJobs = (version: string) =>
  registry.map((l) => l.name).filter((n) => expectedSkips(version).includes(n) || DISRUPTIVE.includes(n));
// (DISRUPTIVE: db-outage, broker-restart and quorum-failover, which kills a cluster node)

describe('mqlab all', () => {
  const s = useServices();

  it(
    'runs every lab in order; --json is one whole document and --junit one testcase per check',
    async () => {
      const junit = `/tmp/mqlab-all-${process.pid}.junit.xml`;
      // the document is far larger than a pipe's 64 KiB: read it through a slow reader, as a CI step
      // piping into another program would, and it must still arrive whole. The pipeline runs in its own
      // process group: past the budget it is stopped whole, and no `mqlab all` is left holding the set
      const run = execa('bash', ['-c', `set -o pipefail; node ${CLI} all --json --junit ${junit} | (sleep 1; cat)`], {
        reject: false,
        detached: true,
        env: { NO_COLOR: '1' },
      });
      const stop = setTimeout(() => process.kill(-run.pid!, 'SIGINT'), ALL_BUDGET_MS - 10_000);
      const r = await run.finally(() => clearTimeout(stop));
      expect(r.stdout.trimStart().startsWith('{'), `no JSON document (exit ${r.exitCode}):\n${r.stderr}`).toBe(true);
      const doc = parseRun(r.stdout);
      // a lab that needs a newer broker or a cluster is skipped, never passed
      const skipped = doc.labs.filter((l) => l.status === 'skipped').map((l) => l.lab);
      expect(skipped).toEqual(expectedSkips(doc.broker.version));
      for (const name of CLUSTER_LABS)
        expect(doc.labs.find((l) => l.lab === name)?.skipped, name).toMatch(
          /^needs a cluster of 3 RabbitMQ nodes: run `mqlab up --nodes 3` \(/,
        );
      const failed = doc.labs
        .filter((l) => l.status !== 'passed' && l.status !== 'skipped')
        .map((l) => `${l.lab}: ${'error' in l ? text(l.error) : 'failed checks'}`);
      expect(r.exitCode, failed.join('\n') + r.stderr).toBe(0);
      expect(doc.result).toBe('passed');
      expect(reportErrors(doc)).toBe(''); // the run without --jobs matches docs/report.schema.json too
      expect(doc.labs.map((l) => l.lab)).toEqual(registry.map((l) => l.name));
      expect(doc.broker.version).toMatch(/^\d+\.\d+\.\d+/);
      const checks = doc.labs.reduce((n, l) => n + l.checks.length, 0);
      const xml = fs.readFileSync(junit, 'utf8');
      expect(xml.match(/<testcase /g)?.length).toBe(checks + skipped.length);
      // a check the run could not observe (SKIP name: reason, e.g. hold's statistics on a busy machine) is a skipped testcase too
      const skippedChecks = doc.labs.reduce((n, l) => n + l.checks.filter((c) => c.skipped !== undefined).length, 0);
      expect(xml.match(/<skipped /g)?.length ?? 0).toBe(skipped.length + skippedChecks);
      expect(xml.match(/<testsuite /g)?.length).toBe(registry.length);
      expect(xml).not.toContain('<failure');
    },
    ALL_BUDGET_MS,
  );

  it('--jobs 4: the same output in registry order, each lab in its own namespace on the broker', async () => {
    expect.hasAssertions(); // some assertions sit in loops over what the run observed
    const r = await mqlab(['all', '--jobs', '4', '--namespace', NS, ...SKIP_DISRUPTIVE]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // lab by lab in the registry's order, then the summary rows in the same order
    const headers = r.lines.filter((l) => l.startsWith('== ')).map((l) => l.slice(3).split(':')[0]);
    expect(headers).toEqual(registry.map((l) => l.name));
    const summary = r.lines.slice(r.lines.findIndex((l) => /^lab +result/.test(l)) + 1);
    expect(summary.map((l) => l.split(/ +/)[0])).toEqual([...registry.map((l) => l.name), 'ALL:']);
    // delayed-retry needs 4.3, quorum-failover a cluster: skipped, as in the run without --jobs; and the --skip ones
    expect(summary.at(-1)).toMatch(
      new RegExp(
        `^ALL: ${registry.length} lab\\(s\\) in \\d+\\.\\d s, none failed, ${skippedWithJobs(s.broker.version).length} skipped$`,
      ),
    );
    // (quorum-failover is one of them: left out before its cluster is asked for; the first test shows that SKIP)
    for (const name of DISRUPTIVE) expect(r.lines).toContain(`SKIP ${name}: left out with --skip`);
    expect(r.stderr.split('\n')[0]).toBe(
      `mqlab: ${registry.length} labs, 4 at a time, each in its own namespace: ${registry.map((l, i) => `${l.name}=${labNs(i)}`).join(' ')}`,
    );
    // what the broker holds: every queue of every lab, under that lab's own namespace
    for (const [i, entry] of registry.entries()) {
      if (entry.disruptive) continue; // left out with --skip
      const { lab } = await entry.load();
      for (const q of lab.topology?.(namespaced(labNs(i)), labOptions(entry)).queues ?? [])
        expect(await s.mgmt.queue(q.name), q.name).not.toBeNull();
    }
  }, 300_000);

  it('--jobs: Ctrl-C stops every running lab (exit 130); --step and a bad count are usage errors', async () => {
    const { child, stderrShows } = startMqlab(['all', '--jobs', '4', '--namespace', NS]);
    await stderrShows('each in its own namespace', 30_000);
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    expect(r.stderr).toContain('mqlab: interrupted');
    for (const [args, says] of [
      [['--jobs', '2', '--step'], '--step pauses one lab at a time'],
      [['--jobs', '0'], '--jobs must be a whole number from 1 to 32'],
    ] as const) {
      const bad = await mqlab(['all', ...args, '--namespace', NS]);
      expect(bad.code).toBe(2);
      expect(bad.stdout).toBe('');
      expect(bad.stderr.split('\n')[0]).toContain(says);
    }
  });
});
