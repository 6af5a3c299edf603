/**
 * What a partition or a freeze leaves when the run does not end by itself (the cluster suite): Ctrl-C
 * (SIGINT) in the middle of a cut and of a freeze, and a kill of mqlab itself (SIGKILL: no exit handler
 * runs) followed by `mqlab up --nodes 3`. Afterwards no nft table of the set is left, no node is stopped
 * (SIGSTOP) and all three members run — read from nft, the process table and the management API.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { CONFIG, mqlab, startMqlab, useNamespace } from './helpers.js';
import { Management } from '../src/broker/management.js';
import { members, ownCluster, type ClusterNode } from '../src/services/cluster.js';
import { processStopped } from '../src/services/process.js';
import { linkTable } from '../src/services/link-cut.js';

const { namespace } = useNamespace('t_fcl');
const mgmt = new Management(CONFIG.mgmtUrl, CONFIG.vhost);
const table = linkTable(CONFIG.ports);
const hasTable = () => execFileSync('nft', ['list', 'tables'], { encoding: 'utf8' }).includes(table);

function nodes(): readonly ClusterNode[] {
  const cluster = ownCluster(CONFIG, 3);
  if ('missing' in cluster) throw new Error(`the cluster suite needs the cluster: ${cluster.missing}`);
  return cluster.nodes;
}

/** no table, no stopped node, three members running (the API may take a tick to see a resumed node) */
async function expectWhole(when: string) {
  expect(hasTable(), `${when}: nft table ${table}`).toBe(false);
  for (const node of nodes()) expect(processStopped(node.pid()!), `${when}: ${node.name} stopped`).toBe(false);
  const end = Date.now() + 60_000;
  let running = 0;
  while (Date.now() < end && (running = (await members(mgmt)).filter((m) => m.running).length) < 3)
    await new Promise((r) => setTimeout(r, 500));
  expect(running, `${when}: members running`).toBe(3);
}

/** the nodes the kernel shows stopped, once SIGSTOP reached every thread of the VM (asynchronous: bounded wait) */
async function stoppedNodes(): Promise<ClusterNode[]> {
  const stopped = () => nodes().filter((n) => processStopped(n.pid()!));
  const end = Date.now() + 10_000;
  while (stopped().length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  return stopped();
}

const cut = ['partition', '--namespace', `${namespace}_p`, '--stream', '1s', '--cut-for', '14s'];
const pause = ['node-pause', '--namespace', `${namespace}_n`, '--stream', '1s', '--pause-for', '14s'];

describe('a cut or a freeze interrupted', () => {
  it('Ctrl-C during the cut: exit 130, the table gone with the process', async () => {
    const run = startMqlab(cut);
    await run.stderrShows('nft table ', 120_000);
    expect(hasTable(), 'the cut is in place').toBe(true);
    run.child.kill('SIGINT');
    expect((await run.exited(60_000)).exitCode).toBe(130);
    await expectWhole('after Ctrl-C');
  });

  it('Ctrl-C during the freeze: exit 130, the node resumed', async () => {
    const run = startMqlab(pause);
    await run.stderrShows('frozen, its sockets open', 120_000);
    expect(await stoppedNodes(), 'one node is stopped').toHaveLength(1);
    run.child.kill('SIGINT');
    expect((await run.exited(60_000)).exitCode).toBe(130);
    await expectWhole('after Ctrl-C');
  });

  it('mqlab killed during the freeze, then during the cut: `mqlab up --nodes 3` undoes each', async () => {
    for (const [args, shows, left] of [
      [pause, 'frozen, its sockets open', async () => (await stoppedNodes()).length === 1],
      [cut, 'nft table ', () => Promise.resolve(hasTable())],
    ] as const) {
      const run = startMqlab([...args]);
      await run.stderrShows(shows, 120_000);
      run.child.kill('SIGKILL');
      await run.exited(30_000);
      expect(await left(), `${args[0]} killed: its fault is left behind (no exit handler ran)`).toBe(true);
      const up = await mqlab(['up', '--nodes', '3']);
      expect(up.code, up.stdout + up.stderr).toBe(0);
      await expectWhole(`${args[0]} killed, then mqlab up`);
    }
  });
});
