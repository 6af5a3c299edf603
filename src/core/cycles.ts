/**
 * Cycles of a directed graph in linear time. Strongly connected components (Tarjan's algorithm,
 * iterative, no recursion to overflow): every cycle lies inside one component, found in one pass over
 * the nodes and edges — O(V + E), where a search per start node costs O(V · E) (security review D8:
 * 10,000 queues 91 s, 20,000 out of memory). The dead-letter graphs (src/audit/model.ts,
 * src/broker/dlx-graph.ts) keep E small by routing through shared nodes (an exchange's route) instead
 * of an edge from every queue to every queue a fanout exchange reaches.
 */

/** the components with a cycle (two nodes or more, or one with an edge to itself), each in discovery order */
export function cyclicComponents(count: number, edges: (node: number) => readonly number[]): number[][] {
  const index = new Int32Array(count).fill(-1);
  const low = new Int32Array(count);
  const onStack = new Uint8Array(count);
  const stack: number[] = [];
  const out: number[][] = [];
  let next = 0;
  for (let root = 0; root < count; root++) {
    if (index[root] !== -1) continue;
    // the call stack of the recursive algorithm: a node, its edges (asked once) and how far through them it is
    const frames: [number, readonly number[], number][] = [[root, edges(root), 0]];
    index[root] = low[root] = next++;
    stack.push(root);
    onStack[root] = 1;
    while (frames.length) {
      const frame = frames[frames.length - 1]!;
      const [v, out_, i] = frame;
      if (i < out_.length) {
        frame[2] = i + 1;
        const w = out_[i]!;
        if (index[w] === -1) {
          index[w] = low[w] = next++;
          stack.push(w);
          onStack[w] = 1;
          frames.push([w, edges(w), 0]);
        } else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      frames.pop();
      if (frames.length) {
        const parent = frames[frames.length - 1]![0];
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
      if (low[v] !== index[v]) continue;
      const component: number[] = [];
      let w: number;
      do {
        w = stack.pop()!;
        onStack[w] = 0;
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || out_.includes(v)) out.push(component.reverse());
    }
  }
  return out;
}

/**
 * A shortest path from `from` to `to` inside `within` (breadth-first, parent pointers), as node ids
 * from `from` to `to`; with from = to, a shortest cycle. Empty when there is none.
 */
export function shortestPath(
  from: number,
  to: number,
  within: ReadonlySet<number>,
  edges: (node: number) => readonly number[],
): number[] {
  const parent = new Map<number, number>();
  const queue = [from];
  for (let k = 0; k < queue.length; k++) {
    const v = queue[k]!;
    for (const w of edges(v)) {
      if (!within.has(w)) continue;
      if (w === to) {
        const back = [to];
        for (let at = v; at !== from; at = parent.get(at)!) back.push(at);
        back.push(from);
        return back.reverse();
      }
      if (!parent.has(w) && w !== from) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return [];
}
