/**
 * What a cluster lab may not leave behind, read from nft, the process table and each node's management
 * API: its set's link-cut table, a stopped (SIGSTOP) node, a member not running, a partition a node lists
 * (3.10's Mnesia). Shared by the cluster labs' own tests and the Ctrl-C/kill test.
 */
import { expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { CONFIG } from './helpers.js';
import { members, ownCluster, type ClusterNode } from '../src/services/cluster.js';
import { viewOf } from '../src/services/cluster-watch.js';
import { processStopped } from '../src/services/process.js';
import { linkTable } from '../src/services/link-cut.js';
import { Management } from '../src/broker/management.js';

const mgmt = new Management(CONFIG.mgmtUrl, CONFIG.vhost);

/** the cluster's nodes (the cluster suite needs `mqlab up --nodes 3`) */
export function clusterNodes(): readonly ClusterNode[] {
  const cluster = ownCluster(CONFIG, 3);
  if ('missing' in cluster) throw new Error(`the cluster suite needs the cluster: ${cluster.missing}`);
  return cluster.nodes;
}

/** the set's nft table is in place */
export const hasLinkCut = () =>
  execFileSync('nft', ['list', 'tables'], { encoding: 'utf8' }).includes(linkTable(CONFIG.ports));

/**
 * no table, no stopped node, every member running and no partition listed; `waitMs`: how long the API may
 * take to show the members running (a node just resumed or restarted), 0 for one read right after a lab's end
 */
export async function expectNothingLeft(when: string, waitMs = 0): Promise<void> {
  const nodes = clusterNodes();
  expect(hasLinkCut(), `${when}: nft table ${linkTable(CONFIG.ports)}`).toBe(false);
  for (const node of nodes) expect(processStopped(node.pid()!), `${when}: ${node.name} stopped`).toBe(false);
  const end = Date.now() + waitMs;
  let running = (await members(mgmt)).filter((m) => m.running).length;
  while (running < nodes.length && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 500));
    running = (await members(mgmt)).filter((m) => m.running).length;
  }
  expect(running, `${when}: members running`).toBe(nodes.length);
  const views = await Promise.all(nodes.map((n) => viewOf(n, CONFIG.vhost)));
  expect(
    views.flatMap((v) => v?.ownPartitions ?? []),
    `${when}: partitions the nodes list`,
  ).toEqual([]);
}
