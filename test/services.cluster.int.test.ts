/**
 * `mqlab up --nodes 3` against a cluster with a member down (the cluster suite): it starts the
 * missing node (the running ones are kept) instead of saying the services are up and failing.
 */
import { describe, expect, it } from 'vitest';
import { CONFIG, mqlab, useNamespace } from './helpers.js';
import { Management } from '../src/broker/management.js';
import { members, ownCluster } from '../src/services/cluster.js';
import { waitGone } from '../src/services/process.js';

useNamespace('t_svc');
const mgmt = new Management(CONFIG.mgmtUrl, CONFIG.vhost);

describe('mqlab up on a cluster', () => {
  it('starts a member that is down and keeps the running ones', async () => {
    const cluster = ownCluster(CONFIG, 3);
    if ('missing' in cluster) throw new Error(`the cluster suite needs the cluster: ${cluster.missing}`);
    const [first, , last] = cluster.nodes;
    if (!first || !last) throw new Error('three nodes expected');
    const keptPid = first.pid();
    expect(keptPid).not.toBeNull();
    const killed = await last.kill(60_000);
    expect(await waitGone(killed, 10_000)).toBe(true); // dead at once; gone from the process table once reaped
    const r = await mqlab(['up', '--nodes', '3']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr + r.stdout).not.toContain('services are already up');
    expect(r.stderr + r.stdout).toContain('is not running: starting it');
    // the process table and the management API: the node runs under a new pid, node 1 under its old one
    const now = last.pid();
    expect(now).not.toBeNull();
    expect(now).not.toBe(killed);
    expect(first.pid()).toBe(keptPid);
    expect(
      (await members(mgmt))
        .filter((m) => m.running)
        .map((m) => m.name)
        .sort(),
    ).toEqual(cluster.nodes.map((x) => x.name).sort());
    // and again: now it is up
    const again = await mqlab(['up', '--nodes', '3']);
    expect(again.code).toBe(0);
    expect(again.stderr + again.stdout).toContain('services are already up');
  }, 300_000);
});
