import { describe, expect, it } from 'vitest';
import { buildGraph, deadLetterEdges, queueNotes } from './graph.js';
import { graphSvg } from './graph-svg.js';
import type { Topology } from '../broker/topology.js';

const retryDlq: Topology = {
  queues: [
    { name: 'ns.work', args: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': 'ns.retry' } },
    {
      name: 'ns.retry',
      args: { 'x-message-ttl': 1000, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': 'ns.work' },
    },
    { name: 'ns.dlq' },
  ],
};

describe('the topology as a graph', () => {
  it('dead-letter routes through the default exchange join the queues, labelled with what sends letters down them', () => {
    expect(deadLetterEdges(retryDlq)).toEqual([
      { from: 'q:ns.work', to: 'q:ns.retry', kind: 'dead-letter', label: 'dead letter: rejected' },
      { from: 'q:ns.retry', to: 'q:ns.work', kind: 'dead-letter', label: 'dead letter: rejected, expired' },
    ]);
  });

  it('a queue says its type, TTL, limits and strategy', () => {
    expect(
      queueNotes({
        name: 'q',
        args: {
          'x-message-ttl': 500,
          'x-max-length': 2,
          'x-overflow': 'reject-publish',
          'x-dead-letter-strategy': 'at-least-once',
        },
      }),
    ).toEqual(['quorum queue', 'TTL 500 ms', 'max-length 2', 'overflow reject-publish', 'dead letters at-least-once']);
    expect(queueNotes({ name: 'q', type: 'classic', args: { 'x-message-ttl': 1000 } })).toEqual([
      'classic queue',
      'TTL 1 s',
    ]);
  });

  it('senders left of the queues, the other processes right; an exchange says where it binds', () => {
    const t: Topology = {
      exchanges: [{ name: 'ns.dead', type: 'direct' }],
      queues: [{ name: 'ns.work', args: { 'x-dead-letter-exchange': 'ns.dead' } }, { name: 'ns.dlq' }],
      bindings: [{ exchange: 'ns.dead', queue: 'ns.dlq', key: 'failed' }],
    };
    const g = buildGraph(t, ['producer', 'consumer-run1']);
    const x = (id: string) => g.nodes.find((n) => n.id === id)?.x ?? NaN;
    expect(x('p:producer')).toBeLessThan(x('x:ns.dead'));
    expect(x('x:ns.dead')).toBeLessThan(x('q:ns.work'));
    expect(x('q:ns.work')).toBeLessThan(x('p:consumer-run1'));
    expect(g.nodes.find((n) => n.id === 'x:ns.dead')?.notes).toEqual(['direct exchange', '→ ns.dlq', '  key failed']);
    expect(g.edges.map((e) => `${e.from}>${e.to}:${e.kind}`)).toEqual([
      'x:ns.dead>q:ns.dlq:binding',
      'q:ns.work>x:ns.dead:dead-letter',
    ]);
    const svg = graphSvg(g);
    expect(svg.match(/data-count="ready"/g)).toHaveLength(2);
    expect(svg).toContain('data-node="p:consumer-run1"');
  });
});
