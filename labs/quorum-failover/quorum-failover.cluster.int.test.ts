/**
 * quorum-failover on the cluster `mqlab up --nodes 3` started (the cluster suite): two runs in a
 * row pass, and what they claim is looked up again in the management API and the process table.
 */
import { describe, expect, it } from 'vitest';
import { CONFIG, failedChecks, mqlab, useNamespace } from '../../test/helpers.js';
import { Management } from '../../src/broker/management.js';
import { members, ownCluster, quorumQueue } from '../../src/services/cluster.js';
import { names } from './names.js';
import { sleep } from '../../src/core/time.js';
import { firstLab } from '../../test/report.js';

/** the facts this test reads */
interface FailoverFacts {
  killedNode: string;
  killedPid: number;
  leaderAfter: string;
  failoverMs: number;
}

const n = useNamespace('t_qfc');
const mgmt = new Management(CONFIG.mgmtUrl, CONFIG.vhost);

describe('quorum-failover on a 3-node cluster', () => {
  it('passes twice in a row; the killed node runs again under a new pid and holds a replica online', async () => {
    const cluster = ownCluster(CONFIG, 3);
    if ('missing' in cluster) throw new Error(`the cluster suite needs the cluster: ${cluster.missing}`);
    for (const round of [1, 2]) {
      const pids = new Map(cluster.nodes.map((x) => [x.name, x.pid()]));
      const r = await mqlab(['quorum-failover', '--json']);
      expect(r.code, `round ${round}: ${r.stderr}\n${failedChecks(r.stdout)}`).toBe(0);
      const lab = firstLab<FailoverFacts>(r.stdout);
      expect(lab.status).toBe('passed');
      const killed = lab.facts.killedNode;
      // the pid it killed is the one the node had — unless the node was down before the run (a fault
      // test's `no-restart` leaves it so; the lab starts it first, under a pid read only then)
      const before = pids.get(killed);
      if (before !== null) expect(lab.facts.killedPid).toBe(before);
      else expect(round, 'only the first round may find a node down').toBe(1);
      expect(lab.facts.leaderAfter).not.toBe(killed);
      expect(lab.facts.failoverMs).toBeGreaterThan(0);
      // the process table: the killed pid is gone, the node runs under a new one
      expect(() => process.kill(lab.facts.killedPid, 0)).toThrow();
      const now = cluster.nodes.find((x) => x.name === killed)!.pid();
      expect(now).not.toBeNull();
      expect(now).not.toBe(lab.facts.killedPid);
      // the management API: every member runs, the queue has its 3 replicas online
      expect((await members(mgmt)).filter((m) => m.running)).toHaveLength(3);
      // (the API lists a replica online a moment after it caught up: on 3.10 it showed 2 of 3 once, right after a pass)
      let q = await quorumQueue(mgmt, names(n).queue);
      for (
        const end = Date.now() + 30_000;
        (q?.online.length ?? 0) < 3 && Date.now() < end;
        q = await quorumQueue(mgmt, names(n).queue)
      )
        await sleep(500);
      expect(q?.online).toHaveLength(3);
      expect(q?.members).toContain(killed);
    }
  });
});
