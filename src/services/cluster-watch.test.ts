/** apartNodes: which node a partition Mnesia keeps (3.10) leaves apart, from each node's own view. */
import { describe, expect, it } from 'vitest';
import { apartNodes, type NodeView } from './cluster-watch.js';

const view = (node: string, ownPartitions: string[]): NodeView => ({
  node,
  running: [],
  partitions: ownPartitions,
  ownPartitions,
});

describe('apartNodes', () => {
  it('names the node both others list (measured on 3.10.8 after a cut of node 3: c1, c2 list c3; c3 lists both)', () => {
    expect(apartNodes([view('c1', ['c3']), view('c2', ['c3']), view('c3', ['c1', 'c2'])])).toEqual(['c3']);
  });

  it('names none when no view lists a partition (4.3: Khepri keeps none)', () => {
    expect(apartNodes([view('c1', []), view('c2', []), view('c3', [])])).toEqual([]);
  });

  it('names none when only one other node lists it, or when a node did not answer', () => {
    expect(apartNodes([view('c1', ['c3']), view('c2', []), view('c3', ['c1'])])).toEqual([]);
    expect(apartNodes([view('c1', ['c3']), null, view('c3', ['c1'])])).toEqual([]);
  });
});
