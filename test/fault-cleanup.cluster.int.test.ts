/**
 * What a partition or a freeze leaves when the run does not end by itself (the cluster suite): Ctrl-C
 * (SIGINT) in the middle of a cut and of a freeze, and a kill of mqlab itself (SIGKILL: no exit handler
 * runs) followed by `mqlab up --nodes 3`. Afterwards no nft table of the set is left, no node is stopped
 * (SIGSTOP), all three members run and none lists a partition (test/cluster-left.ts).
 */
import { describe, expect, it } from 'vitest';
import { mqlab, startMqlab, useNamespace } from './helpers.js';
import { clusterNodes, expectNothingLeft, hasLinkCut } from './cluster-left.js';
import { processStopped } from '../src/services/process.js';
import type { ClusterNode } from '../src/services/cluster.js';

const { namespace } = useNamespace('t_fcl');
/** the API may take a tick to see a resumed or restarted node */
const expectWhole = (when: string) => expectNothingLeft(when, 60_000);

/** the nodes the kernel shows stopped, once SIGSTOP reached every thread of the VM (asynchronous: bounded wait) */
async function stoppedNodes(): Promise<ClusterNode[]> {
  const stopped = () => clusterNodes().filter((n) => processStopped(n.pid()!));
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
    expect(hasLinkCut(), 'the cut is in place').toBe(true);
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
      [cut, 'nft table ', () => Promise.resolve(hasLinkCut())],
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
