/**
 * The lab's topology as a graph for the bench page, from its topology data only: exchanges and
 * queues (type, TTL, limits, dead-letter strategy on the node), bindings and dead-letter routes
 * (with the reason they carry) as edges, and the run's processes beside them: those whose name says
 * they send (producer, relay, publisher) on the left, the others on the right; and what the run
 * showed beyond the data: room in a queue's node for the policy the run gave it, and the dead-letter
 * routes such a policy added (src/page/policy.ts), and room for as many tokens as a node held at
 * once. A name too long for its box wraps at its dots (never cut: a namespace says whose queue it
 * is). Dead-letter routes between queues of one column are arcs on their right, each in its own
 * lane, its label beside it where no other arc crosses (graph-arcs.ts). Pure geometry.
 */
import type { Topology, QueueSpec } from '../broker/topology.js';
import { text } from '../core/text.js';
import { layoutArcs, type Arc } from './graph-arcs.js';

export interface GraphNode {
  id: string;
  kind: 'exchange' | 'queue' | 'process';
  label: string;
  /** the name as drawn: one line, or several when it is too long for the box (broken after its dots) */
  name: string[];
  /** the lines under the name: type, TTL, limits, strategy */
  notes: string[];
  /** rows kept for tokens (messages): as many as the run's steps put there at once, at least one */
  tokenRows: number;
  /** queues: the lines kept under the notes for the policy in effect (the page fills them per step) */
  policyLines?: number;
  /** exchanges: per note line that names a binding, the binding (`x:<exchange>>q:<queue>`: the page strikes it while unbound) */
  noteBindings?: Record<number, string>;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  kind: 'binding' | 'dead-letter' | 'flow';
  label: string;
  /** a route a run-time policy added: the queue (node id) whose policy it is */
  policyOf?: string;
}

/** what the run showed beyond the topology data (src/page/policy.ts) */
interface GraphExtras {
  /** per queue name: the policy lines its node keeps room for, and the longest, in characters */
  policyRoom?: Record<string, { lines: number; chars: number }>;
  policyEdges?: GraphEdge[];
  /** per node id: the widths of the tokens it held at once, at each moment that had any (tokenWidth) */
  tokens?: Record<string, number[][]>;
  /** the run's flows so far (src/page/flows.ts): process → queue publishes, queue → process deliveries */
  flows?: GraphEdge[];
}

export interface Graph {
  width: number;
  height: number;
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** the dead-letter routes between queues of one column, laid out (an index into edges each) */
  arcs: Arc[];
}

export const queueId = (name: string) => `q:${name}`;
export const exchangeId = (name: string) => `x:${name}`;
export const processId = (lane: string) => `p:${lane}`;

const ROW_GAP = 16;
const COL = { process: 150, exchange: 200, queue: 310, gap: 24, bends: 36, flows: 40 };
/**
 * a name is 25 px bold (page-style.ts .g-name): 15.9 px a character in DejaVu Sans Bold as Chromium
 * draws it, 16.4 counted; a process's column fits the longest, up to a limit (then it wraps)
 */
const NAME_CHAR_W = 16.4;
const NAME_H = 30;
const PROCESS_MAX_W = 250;
/** a process column: its longest name, up to a limit, and its widest token */
const processWidth = (names: readonly string[], tokens: Record<string, number[][]>) =>
  Math.max(
    Math.min(PROCESS_MAX_W, Math.max(COL.process, ...names.map((n) => 24 + n.length * NAME_CHAR_W))),
    ...names.flatMap((n) => (tokens[processId(n)] ?? []).flat().map((w) => w + 16)),
  );
/** a note's line (page-style.ts .g-note, 20 px) and about one character of it in DejaVu Sans */
export const LINE_H = 24;
const CHAR_W = 11.2;
const QUEUE_MAX_W = 420;
/** a token's pill (page-script.ts): 28 px tall, a row every 34 px, 16 + 12 px a character wide, 6 px apart */
const TOKEN_ROW = 34;
export const tokenWidth = (label: string) => 16 + label.length * 12;
const TOKEN_GAP = 6;

/**
 * where a node's parts go, from its top: the name's baselines, the first note's, the first token
 * row's top, the counts' (or state's) baseline, and its height
 */
export function nodeLayout(nameLines: number, lines: number, tokenRows: number) {
  const name = Array.from({ length: nameLines }, (_, i) => 28 + i * NAME_H);
  const note = 28 + (nameLines - 1) * NAME_H + 30;
  // the row of tokens below the last line of text (a name with no notes: below the name)
  const tokens = note - 30 + (lines ? (lines - 1) * LINE_H + 30 : 0) + 12;
  const counts = tokens + Math.max(1, tokenRows) * TOKEN_ROW + 22;
  return { name, note, tokens, counts, h: Math.max(120, counts + 14) };
}

/** a node tall enough for its name, `lines` lines of notes, its rows of tokens and the counts */
const nodeHeight = (nameLines: number, lines: number, tokenRows = 1) => nodeLayout(nameLines, lines, tokenRows).h;

/**
 * the name in lines that fit `w` px: broken after a dot, dash, underscore or colon (a part longer than
 * a line anywhere), in as few lines as it takes, as even as they can be (`h22.me12.` / `outbox.orders`)
 */
export function nameLines(label: string, w: number): string[] {
  const max = Math.max(4, Math.floor((w - 24) / NAME_CHAR_W));
  if (label.length <= max) return [label];
  const parts = (label.match(/[^.\-_:]+[.\-_:]*|[.\-_:]+/g) ?? [label]).flatMap((p) =>
    p.length <= max ? [p] : (p.match(new RegExp(`.{1,${max}}`, 'g')) ?? [p]),
  );
  // best[i]: the lines for parts[i..]: fewest, then the shortest longest line
  const best: { lines: string[]; longest: number }[] = [];
  best[parts.length] = { lines: [], longest: 0 };
  for (let i = parts.length - 1; i >= 0; i--) {
    let line = '';
    for (let j = i; j < parts.length; j++) {
      line += parts[j];
      if (line.length > max) break;
      const rest = best[j + 1]!;
      const cand = { lines: [line, ...rest.lines], longest: Math.max(line.length, rest.longest) };
      const cur = best[i];
      if (
        !cur ||
        cand.lines.length < cur.lines.length ||
        (cand.lines.length === cur.lines.length && cand.longest < cur.longest)
      )
        best[i] = cand;
    }
  }
  return best[0]?.lines ?? [label];
}

/** how many rows tokens of these widths take in a node whose inside is `inner` px wide (as the page packs them) */
export function tokenRowsFor(widths: readonly number[], inner: number): number {
  let rows = 1;
  let room = inner;
  for (const w of widths) {
    if (w > room && room < inner) {
      rows += 1;
      room = inner;
    }
    room -= w + TOKEN_GAP;
  }
  return rows;
}

/** processes whose name says they send go left of the queues */
export const sends = (lane: string) => /produc|publish|relay|sender|outbox|business/.test(lane);

/** what a queue's arguments say, in words a class reads */
export function queueNotes(q: QueueSpec): string[] {
  const a = q.args ?? {};
  const notes = [`${q.type ?? 'quorum'} queue`];
  const ms = (v: unknown) => (Number(v) >= 1000 && Number(v) % 1000 === 0 ? `${Number(v) / 1000} s` : `${text(v)} ms`);
  if (a['x-message-ttl'] !== undefined) notes.push(`TTL ${ms(a['x-message-ttl'])}`);
  if (a['x-max-length'] !== undefined) notes.push(`max-length ${text(a['x-max-length'])}`);
  if (a['x-overflow'] !== undefined) notes.push(`overflow ${text(a['x-overflow'])}`);
  if (a['x-delivery-limit'] !== undefined) notes.push(`delivery-limit ${text(a['x-delivery-limit'])}`);
  if (a['x-dead-letter-strategy'] !== undefined) notes.push(`dead letters ${text(a['x-dead-letter-strategy'])}`);
  if (a['x-delayed-retry-type'] !== undefined)
    notes.push(`delayed retry ${text(a['x-delayed-retry-type'])} ${ms(a['x-delayed-retry-min'])}`);
  return notes;
}

/**
 * dead-letter routes from the queues' arguments: to an exchange, or through the default exchange to
 * a queue. `delivering`: the queues that delivered to a process so far (the run's flows), when
 * known — only those can reject (a TTL hop no one consumes dead-letters by expiry alone)
 */
export function deadLetterEdges(t: Topology, delivering?: ReadonlySet<string>): GraphEdge[] {
  const queues = new Set(t.queues.map((q) => q.name));
  const out: GraphEdge[] = [];
  for (const q of t.queues) {
    const a = q.args ?? {};
    const dlx = a['x-dead-letter-exchange'];
    if (dlx === undefined) continue;
    const key = a['x-dead-letter-routing-key'];
    // what the queue's own arguments let dead-letter it: a reject always, and what its limits add
    const why = [
      ...(!delivering || delivering.has(q.name) ? ['rejected'] : []),
      ...(a['x-message-ttl'] !== undefined ? ['expired'] : []),
      ...(a['x-max-length'] !== undefined ? ['maxlen'] : []),
      ...(a['x-delivery-limit'] !== undefined ? ['delivery limit'] : []),
    ].join(', ');
    const strategy = a['x-dead-letter-strategy'] === 'at-least-once' ? ', at-least-once' : '';
    if (dlx === '' && typeof key === 'string' && queues.has(key))
      out.push({
        from: queueId(q.name),
        to: queueId(key),
        kind: 'dead-letter',
        label: `dead letter${why ? `: ${why}` : ''}${strategy}`,
      });
    else if (dlx !== '')
      out.push({
        from: queueId(q.name),
        to: exchangeId(text(dlx)),
        kind: 'dead-letter',
        label: `dead letter${key ? ` key ${text(key)}` : ''}${strategy}`,
      });
  }
  return out;
}

/** a dead-letter route to an exchange, as a note on the queue (the arrow between neighbouring columns is short) */
function deadLetterNote(q: QueueSpec, tail: (n: string) => string): string[] {
  const dlx = q.args?.['x-dead-letter-exchange'];
  if (dlx === undefined || dlx === '') return [];
  const key = q.args?.['x-dead-letter-routing-key'];
  return [`dead letters → ${tail(text(dlx))}`, ...(key ? [`  key ${text(key)}`] : [])];
}

/**
 * where a flow meets a node's side: off its middle by direction (a delivery above, a publish below),
 * so a delivery and a publish between one queue and one process do not overlap
 */
export const flowPort = (n: { y: number; h: number }, f: { from: string }) =>
  n.y + n.h / 2 + (f.from.startsWith('q:') ? -14 : 14);

/** the queues the flows show delivering to a process (undefined: flows unknown) */
const delivering = (flows: readonly GraphEdge[] | undefined) =>
  flows && new Set(flows.filter((f) => f.from.startsWith('q:') && f.to.startsWith('p:')).map((f) => f.from.slice(2)));

export function buildGraph(t: Topology | null, lanes: readonly string[], extras: GraphExtras = {}): Graph {
  const exchanges = t?.exchanges ?? [];
  const queues = t?.queues ?? [];
  const left = lanes.filter(sends);
  const right = lanes.filter((l) => !sends(l));
  const room = extras.policyRoom ?? {};
  let x = 20;
  let bottom = 20 + ROW_GAP + nodeHeight(1, 1);
  const nodes: GraphNode[] = [];
  type Item = {
    id: string;
    kind: GraphNode['kind'];
    label: string;
    notes: string[];
    policyLines?: number;
    noteBindings?: Record<number, string>;
  };
  const held = extras.tokens ?? {};
  const column = (items: Item[], w: number) => {
    if (items.length === 0) return;
    let y = 20;
    for (const it of items) {
      const name = nameLines(it.label, w);
      const tokenRows = Math.max(1, ...(held[it.id] ?? []).map((ws) => tokenRowsFor(ws, w - 16)));
      const h = nodeHeight(name.length, it.notes.length + (it.policyLines ?? 0), tokenRows);
      nodes.push({ ...it, name, tokenRows, x, y, w, h });
      y += h + ROW_GAP;
    }
    bottom = Math.max(bottom, y);
    x += w + COL.gap;
  };
  const tail = (name: string) => name.split('.').slice(-2).join('.');
  // a sender left of an exchange column: its flows to queues as note lines (an arrow would cross the exchanges)
  const across = exchanges.length > 0;
  const flows = (extras.flows ?? []).filter((f) => !(across && left.some((l) => f.from === processId(l))));
  const sentTo = (l: string) =>
    across
      ? (extras.flows ?? [])
          .filter((f) => f.from === processId(l) && f.to.startsWith('q:'))
          .map((f) => `→ ${tail(f.to.slice(2))}`)
      : [];
  column(
    left.map((l) => ({ id: processId(l), kind: 'process' as const, label: l, notes: ['process', ...sentTo(l)] })),
    processWidth(left, held),
  );
  // an exchange's bindings as note lines, each line knowing its binding (the page strikes an unbound one)
  const binds = (x: string) =>
    (t?.bindings ?? [])
      .filter((b) => b.exchange === x)
      .flatMap((b) => {
        const id = `${exchangeId(b.exchange)}>${queueId(b.queue)}`;
        return [{ line: `→ ${tail(b.queue)}`, id }, ...(b.key ? [{ line: `  key ${b.key}`, id }] : [])];
      });
  const edges: GraphEdge[] = [
    ...(t?.bindings ?? []).map((b) => ({
      from: exchangeId(b.exchange),
      to: queueId(b.queue),
      kind: 'binding' as const,
      label: b.key ? `key ${b.key}` : 'bound',
    })),
    ...(t ? deadLetterEdges(t, delivering(extras.flows)) : []),
    ...(extras.policyEdges ?? []),
    ...flows,
  ];
  column(
    exchanges.map((e) => {
      const lines = binds(e.name);
      return {
        id: exchangeId(e.name),
        kind: 'exchange' as const,
        label: e.name,
        notes: [`${e.type} exchange`, ...lines.map((l) => l.line)],
        noteBindings: Object.fromEntries(lines.map((l, i) => [i + 1, l.id])),
      };
    }),
    COL.exchange,
  );
  // room for the edges between exchanges and queues to show (and a token on them), when there are any
  if (exchanges.length && edges.some((e) => e.from.startsWith('x:') || e.to.startsWith('x:'))) x += COL.bends - COL.gap;
  // a policy's lines may be longer than the notes: the column widens for them, up to a limit
  const policyChars = Math.max(0, ...queues.map((q) => room[q.name]?.chars ?? 0));
  column(
    queues.map((q) => ({
      id: queueId(q.name),
      kind: 'queue' as const,
      label: q.name,
      notes: [...queueNotes(q), ...deadLetterNote(q, tail)],
      ...(room[q.name] ? { policyLines: room[q.name]!.lines } : {}),
    })),
    Math.min(QUEUE_MAX_W, Math.max(COL.queue, Math.ceil(24 + policyChars * CHAR_W))),
  );
  // the dead-letter arcs between queues, each in its lane, with their labels: their room (the flows
  // between the queues and the processes right of them cross every lane, level with their queue's port)
  const levels = flows.flatMap((f) => {
    const q = nodes.find((n) => n.kind === 'queue' && (n.id === f.from || n.id === f.to));
    return q ? [flowPort(q, f)] : [];
  });
  const arcs = layoutArcs(nodes, edges, { top: 20, bottom: bottom - ROW_GAP }, levels);
  if (arcs.length) x = Math.max(x, Math.max(...arcs.map((a) => a.right)) + COL.gap);
  // room for the flows to the processes on the right to bend, each its own way
  if (flows.some((f) => right.some((l) => f.from === processId(l) || f.to === processId(l)))) x += COL.flows;
  column(
    right.map((l) => ({ id: processId(l), kind: 'process' as const, label: l, notes: ['process'] })),
    processWidth(right, held),
  );
  return {
    width: x,
    height: Math.max(bottom - ROW_GAP, ...arcs.map((a) => a.bottom)) + 16,
    nodes,
    edges,
    arcs,
  };
}
