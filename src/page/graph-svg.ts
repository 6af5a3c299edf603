/**
 * The topology graph as inline SVG: a box per exchange, queue and process, the queues' live
 * counts as text the page fills in (data-count), bindings as arrows, dead-letter routes as dashed
 * arcs labelled with what sends a letter down them. A queue's node keeps empty lines
 * (data-policy-line) the page fills with the policy in effect at the step; a route a policy added
 * says whose (data-policy-of). Every edge names its ends (data-from, data-to, in the direction its
 * path runs), so the page moves a token along the paths of the route it took. Tokens (messages)
 * are drawn by the page's script into the `tokens` group, at each node's anchor (data-x, data-right, data-cy).
 * Edge labels name their edge's ends too (data-from, data-to).
 */
import { esc } from './html-marks.js';
import { flowPort, LINE_H, nodeLayout, type Graph, type GraphEdge, type GraphNode } from './graph.js';
import { CORNER, type Arc } from './graph-arcs.js';

const find = (g: Graph, id: string) => g.nodes.find((n) => n.id === id);

function nodeSvg(n: GraphNode): string {
  const l = nodeLayout(n.name.length, n.notes.length + (n.policyLines ?? 0), n.tokenRows);
  const name = n.name.map((t, i) => `<tspan x="${n.x + 12}" y="${n.y + l.name[i]!}">${esc(t)}</tspan>`).join('');
  const notes = n.notes
    .map((t, i) => {
      const binding = n.noteBindings?.[i];
      return `<text class="g-note"${binding ? ` data-binding="${esc(binding)}"` : ''} x="${n.x + 12}" y="${n.y + l.note + i * LINE_H}">${esc(t)}</text>`;
    })
    .join('');
  const policy = Array.from(
    { length: n.policyLines ?? 0 },
    (_, i) =>
      `<text class="g-policy${i === 0 ? ' g-policy-name' : ''}" x="${n.x + 12}" y="${n.y + l.note + (n.notes.length + i) * LINE_H}" data-policy-line="${i}"></text>`,
  ).join('');
  const counts =
    n.kind === 'queue'
      ? `<text class="g-count" x="${n.x + 12}" y="${n.y + l.counts}"><tspan data-count="ready">ready –</tspan><tspan dx="8" data-count="unacked">unacked –</tspan><tspan dx="8" data-count="held">held –</tspan></text>`
      : n.kind === 'process'
        ? `<text class="g-state" x="${n.x + 12}" y="${n.y + l.counts}" data-state=""></text>`
        : '';
  // tokens line up from the node's right edge, in rows from data-cy down (graph.ts keeps room for them)
  return (
    `<g class="g-node g-${n.kind}" data-node="${esc(n.id)}" data-x="${n.x + 8}" data-right="${n.x + n.w - 8}" data-cy="${n.y + l.tokens}">` +
    `<rect x="${n.x}" y="${n.y}" width="${n.w}" height="${n.h}" rx="10"/>` +
    `<text class="g-name">${name}<title>${esc(n.label)}</title></text>${notes}${policy}${counts}</g>`
  );
}

/** a route between two queues of one column: out to its lane, along it, back in; its label beside it */
function arcSvg(e: GraphEdge, a: Arc, cls: string, ends: string): string {
  const s = Math.sign(a.yb - a.ya);
  const r = Math.min(CORNER, Math.abs(a.yb - a.ya) / 2);
  const d =
    `M${a.x0},${a.ya} H${a.x - r} Q${a.x},${a.ya} ${a.x},${a.ya + s * r} V${a.yb - s * r} ` +
    `Q${a.x},${a.yb} ${a.x - r},${a.yb} H${a.x0 + 8}`;
  const label = a.label.lines
    .map(
      (t, k) =>
        `<text class="g-edge-label" ${ends} x="${a.label.x[k]}" y="${a.label.cy}" transform="rotate(90 ${a.label.x[k]} ${a.label.cy})" text-anchor="middle">${esc(t)}</text>`,
    )
    .join('');
  return `<path class="${cls}" ${ends} d="${d}" marker-end="url(#arrow)"><title>${esc(e.label)}</title></path>${label}`;
}

function edgeSvg(g: Graph, e: GraphEdge, i: number): string {
  const a = find(g, e.from);
  const b = find(g, e.to);
  if (!a || !b) return '';
  const cls = `g-edge g-${e.kind}${e.policyOf ? ' g-policy-route' : ''}`;
  const ends = `data-from="${esc(e.from)}" data-to="${esc(e.to)}"${e.policyOf ? ` data-policy-of="${esc(e.policyOf)}"` : ''}`;
  const arc = g.arcs.find((x) => x.edge === i);
  if (arc) return arcSvg(e, arc, cls, ends);
  if (a.x === b.x) return '';
  const [from, to] = a.x < b.x ? [a, b] : [b, a];
  const flow = e.kind === 'flow';
  const x1 = from.x + from.w;
  const y1 = flow ? flowPort(from, e) : from.y + from.h / 2;
  const x2 = to.x;
  const y2 = flow ? flowPort(to, e) : to.y + to.h / 2;
  // a flow from a queue's side runs level across the dead-letter arcs' lanes (no label is there), then bends
  const lanes = flow && from.kind === 'queue' && g.arcs.length ? Math.max(...g.arcs.map((r) => r.right)) + 6 : x1;
  const mx = (lanes + x2) / 2;
  const d =
    a.x < b.x
      ? `M${x1},${y1} H${lanes} C${mx},${y1} ${mx},${y2} ${x2 - 8},${y2}`
      : `M${x2},${y2} C${mx},${y2} ${mx},${y1} ${lanes},${y1} H${x1 + 8}`;
  return `<path class="${cls}" ${ends} d="${d}" marker-end="url(#arrow)"><title>${esc(e.label)}</title></path>`;
}

/** the smallest scale the graph is drawn at: its smallest text (20 px) is 18.4 px on screen */
const MIN_SCALE = 0.92;
/**
 * smaller still (its smallest text 16 px on screen, as the timeline's) where that keeps the step panel
 * beside it: at 1280×720 the step's message stays above the fold (page-script.ts fit())
 */
const FLOOR_SCALE = 0.8;

export function graphSvg(g: Graph): string {
  const edges = g.edges.map((e, i) => edgeSvg(g, e, i));
  const empty = g.nodes.length === 0 ? `<text class="g-note" x="20" y="60">this lab declares no topology</text>` : '';
  // the page sizes it to the height and width it has (page-script.ts fit()), never below MIN_SCALE
  // (its 20 px text at least 18 px on screen), or FLOOR_SCALE where that keeps the step panel beside it
  const w = g.width + 20;
  return (
    `<svg class="graph" viewBox="0 0 ${w} ${g.height}" data-min-scale="${MIN_SCALE}" data-floor-scale="${FLOOR_SCALE}" role="img" aria-label="the lab's exchanges, queues and processes">` +
    `<defs><marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>` +
    `${edges.join('')}${g.nodes.map(nodeSvg).join('')}${empty}<g class="tokens"></g></svg>`
  );
}
