import { describe, expect, it } from 'vitest';
import { clusterNodeName, nodeAddress, nodePorts, portsFor } from '../core/defaults.js';
import { clusterNodes, nodesFor, rabbitEnv } from './rabbitmq-node.js';
import { cutScript, linkTable } from './link-cut.js';
import { parseNodes } from './index.js';

describe('the cluster layout of `mqlab up --nodes 3`', () => {
  it("node 1 keeps the set's own ports; nodes 2 and 3 add 10 and 20; epmd and PostgreSQL are shared", () => {
    const p = portsFor(2000);
    expect(nodePorts(p, 1)).toEqual(p);
    expect(nodePorts(p, 3)).toEqual({ ...p, amqp: 7792, management: 17792, erlangDist: 27792 });
    const nodes = clusterNodes(p, 3);
    expect(nodes.map((n) => [n.service, n.name, n.ports.amqp])).toEqual([
      ['rabbitmq-c1', 'mqlab-c1@127.7.208.11', 7772],
      ['rabbitmq-c2', 'mqlab-c2@127.7.208.12', 7782],
      ['rabbitmq-c3', 'mqlab-c3@127.7.208.13', 7792],
    ]);
    // node 1 boots alone; the others discover it (and each other) on their first boot
    const all = [1, 2, 3].map((i) => clusterNodeName(p, i)).join();
    expect(nodes.map((n) => n.peers?.join())).toEqual(['', all, all]);
    expect(new Set(nodes.map((n) => n.ports.epmd))).toEqual(new Set([p.epmd]));
  });
  it('each node of a set has its own loopback address; two offsets never share one', () => {
    expect([1, 2, 3].map((i) => nodeAddress(portsFor(0), i))).toEqual(['127.0.0.11', '127.0.0.12', '127.0.0.13']);
    const seen = new Set<string>();
    for (const offset of [0, 1, 255, 256, 1000, 4000, 4500, 30000])
      for (const i of [1, 2, 3]) seen.add(nodeAddress(portsFor(offset), i));
    expect(seen.size).toBe(8 * 3);
    expect(
      [...seen].every((a) => /^127\.\d+\.\d+\.1[1-3]$/.test(a) && a.split('.').every((o) => Number(o) < 256)),
    ).toBe(true);
  });
  it("a cluster node's distribution listens on and connects from its address; the CLI stays on 127.0.0.1", () => {
    const [n2] = clusterNodes(portsFor(4000), 3).slice(1);
    const env = rabbitEnv('/d', n2!.ports, n2!.name, false, n2!.dist);
    expect(env.RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS).toContain(
      '-kernel inet_dist_use_interface {127,15,160,12} -kernel inet_dist_connect_options [{ip,{127,15,160,12}}] -kernel net_ticktime 10',
    );
    expect(env.RABBITMQ_USE_LONGNAME).toBe('true');
    expect(env.ERL_EPMD_ADDRESS).toBe('127.0.0.1,127.15.160.11,127.15.160.12,127.15.160.13');
    expect(env.RABBITMQ_CTL_ERL_ARGS).toBe('-kernel inet_dist_use_interface {127,0,0,1} -kernel net_ticktime 10');
    expect(rabbitEnv('/d', portsFor(0)).RABBITMQ_CTL_ERL_ARGS).toBe('-kernel inet_dist_use_interface {127,0,0,1}');
    expect(rabbitEnv('/d', portsFor(0)).ERL_EPMD_ADDRESS).toBe('127.0.0.1');
  });
  it("a cut drops both directions between the two sides in the set's own table", () => {
    expect(linkTable(portsFor(4000))).toBe('mqlab_links_4000');
    const s = cutScript('mqlab_links_4000', ['127.15.160.12'], ['127.15.160.11', '127.15.160.13']);
    expect(s).toContain('ip saddr { 127.15.160.12 } ip daddr { 127.15.160.11, 127.15.160.13 } counter drop');
    expect(s).toContain('ip saddr { 127.15.160.11, 127.15.160.13 } ip daddr { 127.15.160.12 } counter drop');
    expect(s.indexOf('delete table inet mqlab_links_4000')).toBeGreaterThan(s.indexOf('add table'));
  });
  it('one node is the single node of before, in its own folder', () => {
    expect(nodesFor(portsFor(0), 1)).toEqual([{ service: 'rabbitmq', name: 'mqlab@localhost', ports: portsFor(0) }]);
  });
  it('--nodes takes 1 to 3', () => {
    expect(parseNodes('3')).toBe(3);
    for (const bad of ['0', '4', 'two', '1.5']) expect(() => parseNodes(bad)).toThrow(/^invalid --nodes/);
  });
});
