import { describe, expect, it } from 'vitest';
import { buildGraph, deadLetterEdges, nameLines, queueNotes, tokenRowsFor } from './graph.js';
import { ARC_CHAR_W, wrapWords } from './graph-arcs.js';
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

  it('a long name wraps at its dots into even lines, never cut', () => {
    expect(nameLines('h22.orders.work', 310)).toEqual(['h22.orders.work']);
    expect(nameLines('h22.me12.outbox.orders', 310)).toEqual(['h22.me12.', 'outbox.orders']);
    expect(nameLines('tw-s10.me12.retry.hold.target', 310).join('')).toBe('tw-s10.me12.retry.hold.target');
    // a part longer than a line is split anywhere
    const lines = nameLines('averyveryverylongnamespacewithoutdots.q', 200);
    expect(lines.join('')).toBe('averyveryverylongnamespacewithoutdots.q');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(10);
  });

  it('tokens take the rows the page packs them in', () => {
    expect(tokenRowsFor([], 294)).toBe(1);
    expect(tokenRowsFor([100, 100], 294)).toBe(1);
    expect(tokenRowsFor([124, 100, 88], 294)).toBe(2);
    expect(tokenRowsFor([400], 294)).toBe(1);
  });

  it('dead-letter arcs between queues of a column: nested lanes, each label beside its arc where no other arc crosses', () => {
    const g = buildGraph(retryDlq, ['producer', 'consumer']);
    expect(g.arcs).toHaveLength(2);
    const [inner, outer] = [...g.arcs].sort((a, b) => a.x - b.x);
    const span = (a: typeof inner) => [Math.min(a!.ya, a!.yb), Math.max(a!.ya, a!.yb)] as const;
    // the outer arc holds the inner one: it leaves higher and arrives lower
    expect(span(outer)[0]).toBeLessThan(span(inner)[0]);
    expect(span(outer)[1]).toBeGreaterThan(span(inner)[1]);
    // the inner label lies between the outer arc's horizontal stretches, the outer label right of the inner one
    const extent = (a: typeof inner) => {
      const len = Math.max(...a!.label.lines.map((l) => l.length)) * ARC_CHAR_W;
      return [a!.label.cy - len / 2, a!.label.cy + len / 2] as const;
    };
    expect(extent(inner)[0]).toBeGreaterThan(span(outer)[0]);
    expect(extent(inner)[1]).toBeLessThan(span(outer)[1]);
    expect(Math.min(...outer!.label.x)).toBeGreaterThan(inner!.right);
    // the process column comes after the arcs' lanes
    expect(g.nodes.find((n) => n.id === 'p:consumer')!.x).toBeGreaterThan(outer!.right);
    expect(wrapWords('dead letter: rejected, expired', 2)).toEqual(['dead letter:', 'rejected, expired']);
  });
});
