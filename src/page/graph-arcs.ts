/**
 * Dead-letter routes between two queues of one column (work → retry → work): arcs on the column's
 * right, each in a lane of its own, its label beside its vertical stretch, rotated, where no other arc
 * crosses. Lanes go from the shortest route (innermost) out; on a node, the ports of the routes are
 * spread down its right edge so that routes nest instead of crossing (an outer route to a lower queue
 * leaves higher; one from an upper queue arrives lower). A label longer than the room it has wraps into
 * a second or third line (the lane widens). Pure geometry; graph-svg.ts draws it.
 */

interface ArcLabel {
  lines: string[];
  /** each line's baseline x (the text runs top to bottom: rotated 90°; its glyphs lie right of it) */
  x: number[];
  /** the centre of the lines, along y */
  cy: number;
}

export interface Arc {
  /** index into the graph's edges */
  edge: number;
  /** the column's right edge, where the route leaves and enters */
  x0: number;
  /** where it leaves its source and arrives at its target */
  ya: number;
  yb: number;
  /** the x of its vertical stretch */
  x: number;
  label: ArcLabel;
  /** the right-most x its lane uses, and the lowest y its label reaches */
  right: number;
  bottom: number;
}

/** an edge label (page-style.ts .g-edge-label: 20 px, weight 600): 11.1 px a character as Chromium draws it */
export const ARC_CHAR_W = 11.8;
const LINE = 24;
/** a rotated line's glyphs: ascent right of the baseline, descent left */
const ASCENT = 16;
const DESCENT = 6;
/** how close a label comes to another arc's horizontal stretch */
const CLEAR = 8;
export const CORNER = 12;

/** the words in at most `n` lines, as even as greedy wrapping gets them */
export function wrapWords(label: string, n: number): string[] {
  const words = label.split(' ');
  const total = label.length;
  for (let width = Math.max(...words.map((w) => w.length)); width <= total; width++) {
    const lines: string[] = [];
    for (const w of words) {
      const last = lines.at(-1);
      if (last !== undefined && last.length + 1 + w.length <= width) lines[lines.length - 1] = `${last} ${w}`;
      else lines.push(w);
    }
    if (lines.length <= n) return lines;
  }
  return [label];
}

const lengthOf = (lines: string[]) => Math.max(...lines.map((l) => l.length)) * ARC_CHAR_W;

/** the free stretches of [top, bottom] once the bands around `ys` are taken out */
function freeStretches(top: number, bottom: number, ys: number[]): [number, number][] {
  const out: [number, number][] = [];
  let from = top;
  for (const y of [...ys].sort((a, b) => a - b)) {
    if (y - CLEAR > from) out.push([from, y - CLEAR]);
    from = Math.max(from, y + CLEAR);
  }
  if (bottom > from) out.push([from, bottom]);
  return out;
}

/** what the arcs read of a node and of an edge (src/page/graph.ts's GraphNode and GraphEdge, which import this file) */
interface ArcNode {
  id: string;
  x: number;
  y: number;
  w: number;
  h: number;
}
interface ArcEdge {
  from: string;
  to: string;
  label: string;
}

export function layoutArcs(
  nodes: readonly ArcNode[],
  edges: readonly ArcEdge[],
  bounds: { top: number; bottom: number },
  /** the heights at which other lines (the run's flows) cross every lane: no label there */
  across: readonly number[] = [],
): Arc[] {
  const at = (id: string) => nodes.find((n) => n.id === id);
  const mid = (n: ArcNode) => n.y + n.h / 2;
  const found = edges
    .map((e, edge) => ({ edge, a: at(e.from), b: at(e.to), label: e.label }))
    .filter(
      (x): x is { edge: number; a: ArcNode; b: ArcNode; label: string } =>
        !!x.a && !!x.b && x.a !== x.b && x.a.x === x.b.x,
    )
    // lanes: the shortest route innermost
    .sort((p, q) => Math.abs(mid(p.a) - mid(p.b)) - Math.abs(mid(q.a) - mid(q.b)) || p.edge - q.edge)
    .map((x, lane) => ({ ...x, lane }));
  if (found.length === 0) return [];

  // the ports on each node's right edge: routes to queues above first (inner ones on top), then
  // routes to queues below (outer ones on top)
  const port = new Map<string, number>();
  for (const n of nodes) {
    const ends = found
      .flatMap((r) => [
        ...(r.a === n ? [{ r, other: r.b, end: 'a' }] : []),
        ...(r.b === n ? [{ r, other: r.a, end: 'b' }] : []),
      ])
      .map((x) => ({ ...x, above: mid(x.other) < mid(n) }))
      .sort((p, q) => (p.above !== q.above ? (p.above ? -1 : 1) : p.above ? p.r.lane - q.r.lane : q.r.lane - p.r.lane));
    ends.forEach((x, i) => {
      const f = ends.length === 1 ? 0.5 : 0.15 + (0.7 * i) / (ends.length - 1);
      port.set(`${x.r.edge}:${x.end}`, n.y + n.h * f);
    });
  }

  const x0 = Math.max(...found.map((r) => r.a.x + r.a.w));
  let x = x0 + 22;
  const arcs: Arc[] = [];
  for (const r of found) {
    const ya = port.get(`${r.edge}:a`) ?? mid(r.a);
    const yb = port.get(`${r.edge}:b`) ?? mid(r.b);
    const [lo, hi] = [Math.min(ya, yb), Math.max(ya, yb)];
    // the horizontal stretches of the routes outside this one cross its label's lane
    const crossing = [
      ...found.filter((o) => o.lane > r.lane).flatMap((o) => [port.get(`${o.edge}:a`)!, port.get(`${o.edge}:b`)!]),
      ...across,
    ];
    const free = freeStretches(bounds.top, bounds.bottom, crossing);
    const centre = (lo + hi) / 2;
    // the stretch beside the route's own vertical stretch (the one around its middle, else the longest it meets)
    const beside =
      free.find(([a, b]) => a <= centre && centre <= b) ??
      [...free].sort((p, q) => overlap(q, lo, hi) - overlap(p, lo, hi))[0] ??
      ([bounds.top, bounds.bottom] as [number, number]);
    const room = beside[1] - beside[0];
    // the fewest lines that fit where no other route crosses (each line widens the lane: width is what a
    // projector lacks), centred beside the route's middle as far as the stretch lets it
    const options = [1, 2, 3].map((n) => wrapWords(r.label, n));
    const lines = options.find((l) => lengthOf(l) <= room) ?? options[2]!;
    const len = lengthOf(lines);
    const cy = Math.min(Math.max(centre, beside[0] + len / 2), beside[1] - len / 2);
    // rotated 90°, a line's top faces right: the first line is the right-most
    const xs = lines.map((_, k) => x + DESCENT + 4 + (lines.length - 1 - k) * LINE);
    const right = xs[0]! + ASCENT;
    arcs.push({
      edge: r.edge,
      x0,
      ya,
      yb,
      x,
      label: { lines, x: xs, cy },
      right,
      bottom: cy + len / 2,
    });
    x = right + 12;
  }
  return arcs.sort((p, q) => p.edge - q.edge);
}

const overlap = ([a, b]: [number, number], lo: number, hi: number) => Math.min(b, hi) - Math.max(a, lo);
