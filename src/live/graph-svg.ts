/**
 * The topology graph as inline SVG: a box per exchange, queue and process, the queues' live
 * counts as text the page fills in (data-count), bindings as arrows, dead-letter routes as dashed
 * arcs labelled with what sends a letter down them. A queue's node keeps empty lines
 * (data-policy-line) the page fills with the policy in effect at the step; a route a policy added
 * says whose (data-policy-of). Every edge names its ends (data-from, data-to, in the direction its
 * path runs), so the page moves a token along the paths of the route it took. Tokens (messages)
 * are drawn by the page's script into the `tokens` group, at each node's anchor (data-x, data-right, data-cy).
 */
import { esc } from '../report/html-marks.js';
import { LINE_H, type Graph, type GraphEdge, type GraphNode } from './graph.js';

const find = (g: Graph, id: string) => g.nodes.find((n) => n.id === id);

function nodeSvg(n: GraphNode): string {
  const notes = n.notes
    .map((t, i) => `<text class="g-note" x="${n.x + 12}" y="${n.y + 58 + i * LINE_H}">${esc(t)}</text>`)
    .join('');
  const policy = Array.from(
    { length: n.policyLines ?? 0 },
    (_, i) =>
      `<text class="g-policy${i === 0 ? ' g-policy-name' : ''}" x="${n.x + 12}" y="${n.y + 58 + (n.notes.length + i) * LINE_H}" data-policy-line="${i}"></text>`,
  ).join('');
  const counts =
    n.kind === 'queue'
      ? `<text class="g-count" x="${n.x + 12}" y="${n.y + n.h - 14}"><tspan data-count="ready">ready –</tspan><tspan dx="8" data-count="unacked">unacked –</tspan><tspan dx="8" data-count="held">held –</tspan></text>`
      : n.kind === 'process'
        ? `<text class="g-state" x="${n.x + 12}" y="${n.y + n.h - 14}" data-state=""></text>`
        : '';
  // tokens line up from the node's right edge, below its name
  return (
    `<g class="g-node g-${n.kind}" data-node="${esc(n.id)}" data-x="${n.x + 8}" data-right="${n.x + n.w - 8}" data-cy="${n.y + n.h - 66}">` +
    `<rect x="${n.x}" y="${n.y}" width="${n.w}" height="${n.h}" rx="10"/>` +
    `<text class="g-name" x="${n.x + 12}" y="${n.y + 28}">${esc(short(n.label, n.w))}<title>${esc(n.label)}</title></text>${notes}${policy}${counts}</g>`
  );
}

/** a long queue name keeps its end (the part that differs), with an ellipsis in front */
function short(label: string, w: number): string {
  // 25 px bold (page-style.ts .g-name): about 16 px a character in DejaVu Sans Bold, Debian's default
  const max = Math.floor((w - 24) / 17);
  return label.length <= max ? label : `…${label.slice(label.length - max + 1)}`;
}

function edgeSvg(g: Graph, e: GraphEdge, arcIndex: number): string {
  const a = find(g, e.from);
  const b = find(g, e.to);
  if (!a || !b) return '';
  const cls = `g-edge g-${e.kind}${e.policyOf ? ' g-policy-route' : ''}`;
  const ends = `data-from="${esc(e.from)}" data-to="${esc(e.to)}"${e.policyOf ? ` data-policy-of="${esc(e.policyOf)}"` : ''}`;
  if (a.x === b.x) {
    // two queues of one column: an arc on their right, each arc a little further out
    const x0 = a.x + a.w;
    const out = x0 + 40 + arcIndex * 48;
    const [ya, yb] = [a.y + a.h * 0.62, b.y + b.h * 0.38];
    const mid = (ya + yb) / 2;
    return (
      `<path class="${cls}" ${ends} d="M${x0},${ya} C${out},${ya} ${out},${yb} ${x0 + 8},${yb}" marker-end="url(#arrow)"/>` +
      `<text class="g-edge-label" x="${out - 6}" y="${mid}" transform="rotate(90 ${out - 6} ${mid})" text-anchor="middle">${esc(e.label)}</text>`
    );
  }
  const [from, to] = a.x < b.x ? [a, b] : [b, a];
  const x1 = from.x + from.w;
  const y1 = from.y + from.h / 2;
  const x2 = to.x;
  const y2 = to.y + to.h / 2;
  const mx = (x1 + x2) / 2;
  const d =
    a.x < b.x
      ? `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2 - 8},${y2}`
      : `M${x2},${y2} C${mx},${y2} ${mx},${y1} ${x1 + 8},${y1}`;
  return `<path class="${cls}" ${ends} d="${d}" marker-end="url(#arrow)"><title>${esc(e.label)}</title></path>`;
}

/** the smallest scale the graph is drawn at: its smallest text (20 px) is 18.4 px on screen */
export const MIN_SCALE = 0.92;

export function graphSvg(g: Graph): string {
  let arcs = 0;
  const edges = g.edges.map((e) => {
    const a = find(g, e.from);
    const b = find(g, e.to);
    return edgeSvg(g, e, a && b && a.x === b.x ? arcs++ : 0);
  });
  const empty = g.nodes.length === 0 ? `<text class="g-note" x="20" y="60">this lab declares no topology</text>` : '';
  // never drawn below MIN_SCALE: its 20 px text stays at least 18 px on screen (the page scrolls down
  // or puts the step panel below the graph rather than shrink it; the 100vw cap is for a phone)
  const w = g.width + 20;
  const size = `min-width:min(${Math.ceil(w * MIN_SCALE)}px, calc(100vw - 64px));max-height:max(72vh, ${Math.ceil(g.height * MIN_SCALE)}px)`;
  return (
    `<svg class="graph" viewBox="0 0 ${w} ${g.height}" style="${size}" role="img" aria-label="the lab's exchanges, queues and processes">` +
    `<defs><marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>` +
    `${edges.join('')}${g.nodes.map(nodeSvg).join('')}${empty}<g class="tokens"></g></svg>`
  );
}
