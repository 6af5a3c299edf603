import { describe, expect, it } from 'vitest';
import { clusterNodeName, nodePorts, portsFor } from '../defaults.js';
import { clusterNodes, nodesFor } from './rabbitmq-node.js';
import { parseNodes } from './index.js';

describe('the cluster layout of `mqlab up --nodes 3`', () => {
  it("node 1 keeps the set's own ports; nodes 2 and 3 add 10 and 20; epmd and PostgreSQL are shared", () => {
    const p = portsFor(2000);
    expect(nodePorts(p, 1)).toEqual(p);
    expect(nodePorts(p, 3)).toEqual({ ...p, amqp: 7792, management: 17792, erlangDist: 27792 });
    const nodes = clusterNodes(p, 3);
    expect(nodes.map((n) => [n.service, n.name, n.ports.amqp])).toEqual([
      ['rabbitmq-c1', 'mqlab-c1@localhost', 7772],
      ['rabbitmq-c2', 'mqlab-c2@localhost', 7782],
      ['rabbitmq-c3', 'mqlab-c3@localhost', 7792],
    ]);
    // node 1 boots alone; the others discover it (and each other) on their first boot
    expect(nodes.map((n) => n.peers?.join())).toEqual(['', ...[2, 3].map(() => [1, 2, 3].map(clusterNodeName).join())]);
    expect(new Set(nodes.map((n) => n.ports.epmd))).toEqual(new Set([p.epmd]));
  });
  it('one node is the single node of before, in its own folder', () => {
    expect(nodesFor(portsFor(0), 1)).toEqual([{ service: 'rabbitmq', name: 'mqlab@localhost', ports: portsFor(0) }]);
  });
  it('--nodes takes 1 to 3', () => {
    expect(parseNodes('3')).toBe(3);
    for (const bad of ['0', '4', 'two', '1.5']) expect(() => parseNodes(bad)).toThrow(/^invalid --nodes/);
  });
});
