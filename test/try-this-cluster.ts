/**
 * The cluster labs' Try-this commands (quorum-failover, partition, node-pause), run as their pages print
 * them (issue 46; test/try-this-pages.ts) on the cluster `mqlab up --nodes 3` started, with what the lab
 * reports and what the cluster shows after each: no link cut, no frozen node, every member running.
 * Two files of the cluster suite run them (.ci/run splits the files over two clusters):
 * try-this-failover.cluster.int.test.ts (a node killed) and try-this-cut.cluster.int.test.ts (links cut, a
 * node frozen).
 */
import { expect, it } from 'vitest';
import { ROOT } from './helpers.js';
import { clusterNodes, expectNothingLeft } from './cluster-left.js';
import { pagesCommands } from './try-this.js';
import { printedShell, type Typed } from './printed-shell.js';
import { runPage, type Expected } from './try-this-pages.js';

/** what `jq` printed of a `--json` run's facts */
const facts = (r: Typed) => JSON.parse(r.stdout) as Record<string, unknown>;
const summary = (r: Typed, name: string) => new RegExp(`\\b${name}=(\\S+)`).exec(r.out)?.[1];
const passed = (r: Typed) => expect(r.out).toMatch(/^RESULT: all assertions passed$/m);

/** after a lab that cut links or froze a node: nothing of it left (the members may take a moment to show running) */
const nothingLeft = (r: Typed) => expectNothingLeft(r.out.split('\n')[0] ?? '', 30_000);

const EXPECTED: Record<string, Record<string, Expected>> = {
  'quorum-failover': {
    // 1: at failed-over, `mqlab status` in a second terminal: the killed node NOT RUNNING, qf.stream's leader another node
    'mqlab quorum-failover --step': {
      pauses: [{ checkpoint: 'failed-over', actions: ['mqlab status'] }],
      check: async (r) => {
        passed(r);
        await nothingLeft(r);
      },
    },
    'mqlab status': {
      codes: [0, 2], // a member down: status says so and exits 2
      check: (r) => {
        const down = /^ {2}(\S+)\s+NOT RUNNING/m.exec(r.out)?.[1];
        expect(down, r.out).toBeTruthy();
        const line = /^ {2}qf\.stream {2}leader (\S+); (.*?) {2}messages/m.exec(r.out);
        expect(line, r.out).not.toBeNull();
        expect(line![1]).not.toBe(down);
        expect(line![2]!.split(', ')).toContain(down); // a member, without its * (offline)
      },
    },
    // 2: a larger window: more unconfirmed at the kill; duplicates only among them; nothing confirmed lost
    "mqlab quorum-failover --window 1000 --json | jq '.labs[0].facts'": {
      check: (r) => {
        const f = facts(r);
        expect(f.unconfirmedAtKill as number).toBeGreaterThan(0);
        expect(f.duplicateIds as number[]).toBeInstanceOf(Array);
        expect(f.leaderAfter).not.toBe(f.leaderBefore);
      },
    },
    // 3: no resend: everyIdConsumed fails, confirmedLost still passes
    'MQLAB_FAULT=quorum-failover:no-resend mqlab quorum-failover': {
      check: (r) => {
        expect(r.out).toMatch(/^FAIL everyIdConsumed: expected=2000 actual=\d+/m);
        expect(r.out).toMatch(/^PASS confirmedLost: 0$/m);
      },
    },
  },
  partition: {
    'mqlab partition --cut-for 40s': {
      check: async (r) => {
        passed(r);
        expect(r.out).toMatch(/^PASS confirmedLost: 0$/m);
        await nothingLeft(r);
      },
    },
    'mqlab partition --confirm-timeout 30s': {
      check: async (r) => {
        passed(r);
        expect(summary(r, 'cutOffConfirmedLate')).toMatch(/^\d+$/);
        await nothingLeft(r);
      },
    },
    "mqlab partition --json | jq '.labs[0].facts | {majorityResumedMs, electionMs, majoritySawCutMs}'": {
      check: async (r) => {
        const f = facts(r);
        expect(Object.keys(f).sort()).toEqual(['electionMs', 'majorityResumedMs', 'majoritySawCutMs']);
        expect(f.majorityResumedMs as number).toBeGreaterThan(0);
        await nothingLeft(r);
      },
    },
    // on 4.3 the cut is held until node 1's consumer gets the held message back (the broker's default timeout)
    'mqlab partition --consumer-disconnected-timeout 60s': {
      check: async (r) => {
        passed(r);
        await nothingLeft(r);
      },
    },
  },
  'node-pause': {
    'mqlab node-pause --pause-for 40s --confirm-timeout 30s': {
      check: async (r) => {
        passed(r);
        expect(r.out).toMatch(/^PASS confirmedLost: 0$/m);
        expect(r.out).toMatch(/^PASS frozenLeaderAnsweredNothing: 0$/m);
        await nothingLeft(r);
      },
    },
  },
};

const pages = pagesCommands(ROOT);
const terminal = printedShell();

/** the test of one cluster lab's page: every command of its Try-this, as printed, one after the other */
export function clusterPageTest(page: keyof typeof EXPECTED): void {
  it(page, { timeout: 1_800_000 }, async () => {
    clusterNodes(); // the cluster suite needs the cluster
    await runPage(page, pages.get(page) ?? [], EXPECTED[page]!, terminal);
  });
}
