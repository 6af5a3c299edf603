import { describe, expect, it } from 'vitest';
import { POLICY_LINE_CHARS, policyEdges, policyLines, policyRoom } from './policy.js';
import type { DepthSeries } from '../broker/depth-sampler.js';
import type { Topology } from '../broker/topology.js';
import { buildGraph } from './graph.js';
import { graphSvg } from './graph-svg.js';

const hold = {
  name: 'ns-me12-hold',
  definition: {
    'dead-letter-exchange': 'ns.me12.retry.hold.dlx',
    'dead-letter-routing-key': 'failed',
    'dead-letter-strategy': 'at-least-once',
    'max-length': 100,
    overflow: 'reject-publish',
  },
};
const topology: Topology = {
  exchanges: [{ name: 'ns.me12.retry.hold.dlx', type: 'direct' }],
  queues: [{ name: 'ns.me12.retry.hold' }, { name: 'ns.me12.retry.hold.target' }],
  bindings: [{ exchange: 'ns.me12.retry.hold.dlx', queue: 'ns.me12.retry.hold.target', key: 'failed' }],
};
const series = (policies: DepthSeries['samples'][number]['policy'][]): DepthSeries => ({
  intervalMs: 250,
  method: { ready: '', messages: '' },
  queues: topology.queues.map((q) => q.name),
  missed: 0,
  samples: policies.map((policy, i) => ({
    timestamp: new Date(i * 1000).toISOString(),
    ready: [0, 0],
    ...(policy === undefined ? {} : { policy }),
  })),
});

describe("a queue's run-time policy on the bench", () => {
  it('the name, then each key it applies with its value; none; not answered', () => {
    expect(policyLines(hold)).toEqual([
      'policy ns-me12-hold',
      'dead-letter-exchange hold.dlx',
      'dead-letter-routing-key failed',
      'dead-letter-strategy at-least-once',
      'max-length 100',
      'overflow reject-publish',
    ]);
    expect(
      policyLines({ name: 'ttl', definition: { 'message-ttl': 5000, expires: 1500, 'dead-letter-exchange': '' } }),
    ).toEqual(['policy ttl', 'message-ttl 5 s', 'expires 1500 ms', 'dead-letter-exchange (default)']);
    expect(policyLines({ name: null, operator: 'cap', definition: { 'max-length': 5 } })).toEqual([
      'operator policy cap',
      'max-length 5',
    ]);
    expect(policyLines({ name: null, definition: {} })).toEqual([]);
    expect(policyLines(null)).toBeNull();
    // a long name keeps its end, every line fits the column
    const long = policyLines({
      name: 'a-very-long-namespace-of-a-student-me12-hold',
      definition: { x: 'y'.repeat(60) },
    })!;
    expect(long[0]).toMatch(/^policy …[a-z-]*-student-me12-hold$/);
    for (const l of long) expect(l.length).toBeLessThanOrEqual(POLICY_LINE_CHARS);
  });

  it('room for the most lines any sample needed, and the dead-letter route the policy added, once', () => {
    const d = series([
      [{ name: null, definition: {} }, null],
      [hold, { name: null, definition: {} }],
      [hold, null],
    ]);
    expect(policyRoom(d)).toEqual({ 'ns.me12.retry.hold': { lines: 6, chars: 34 } });
    expect(policyEdges(d, topology)).toEqual([
      {
        from: 'q:ns.me12.retry.hold',
        to: 'x:ns.me12.retry.hold.dlx',
        kind: 'dead-letter',
        label: 'dead letter (policy ns-me12-hold) key failed',
        policyOf: 'q:ns.me12.retry.hold',
      },
    ]);
    // a queue whose own arguments route its dead letters keeps that route (arguments win over a policy)
    const own: Topology = {
      ...topology,
      queues: [{ name: 'ns.me12.retry.hold', args: { 'x-dead-letter-exchange': 'elsewhere' } }, topology.queues[1]!],
    };
    expect(policyEdges(d, own)).toEqual([]);
    expect(policyEdges(series([[{ name: null, definition: {} }, null]]), topology)).toEqual([]);
  });

  it("the graph keeps the lines in the queue's node, widens its column for them, and draws the route", () => {
    const d = series([[hold, null]]);
    const plain = buildGraph(topology, ['producer', 'target']);
    const g = buildGraph(topology, ['producer', 'target'], {
      policyRoom: policyRoom(d),
      policyEdges: policyEdges(d, topology),
    });
    const node = (gr: typeof g, id: string) => gr.nodes.find((n) => n.id === id)!;
    expect(node(g, 'q:ns.me12.retry.hold').policyLines).toBe(6);
    expect(node(g, 'q:ns.me12.retry.hold').h).toBeGreaterThan(node(plain, 'q:ns.me12.retry.hold').h);
    expect(node(g, 'q:ns.me12.retry.hold').w).toBeGreaterThan(node(plain, 'q:ns.me12.retry.hold').w);
    // the target sits below the taller source
    const src = node(g, 'q:ns.me12.retry.hold');
    expect(node(g, 'q:ns.me12.retry.hold.target').y).toBeGreaterThan(src.y + src.h);
    const svg = graphSvg(g);
    expect(svg.match(/data-policy-line=/g)).toHaveLength(6);
    expect(svg).toContain(
      'data-from="q:ns.me12.retry.hold" data-to="x:ns.me12.retry.hold.dlx" data-policy-of="q:ns.me12.retry.hold"',
    );
    expect(svg).toContain('data-from="x:ns.me12.retry.hold.dlx" data-to="q:ns.me12.retry.hold.target"');
    expect(graphSvg(plain)).not.toContain('data-policy');
  });
});
