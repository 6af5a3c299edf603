/**
 * The lab's topology as a graph for the bench page, from its topology data only: exchanges and
 * queues (type, TTL, limits, dead-letter strategy on the node), bindings and dead-letter routes
 * (with the reason they carry) as edges, and the run's processes beside them: those whose name says
 * they send (producer, relay, publisher) on the left, the others on the right; and what the run
 * showed beyond the data: room in a queue's node for the policy the run gave it, and the dead-letter
 * routes such a policy added (src/live/policy.ts). Pure geometry.
 */
import type { Topology, QueueSpec } from '../broker/topology.js';
import { text } from '../text.js';

export interface GraphNode {
  id: string;
  kind: 'exchange' | 'queue' | 'process';
  label: string;
  /** the lines under the name: type, TTL, limits, strategy */
  notes: string[];
  /** queues: the lines kept under the notes for the policy in effect (the page fills them per step) */
  policyLines?: number;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  kind: 'binding' | 'dead-letter';
  label: string;
  /** a route a run-time policy added: the queue (node id) whose policy it is */
  policyOf?: string;
}

/** what the run showed beyond the topology data (src/live/policy.ts) */
export interface GraphExtras {
  /** per queue name: the policy lines its node keeps room for, and the longest, in characters */
  policyRoom?: Record<string, { lines: number; chars: number }>;
  policyEdges?: GraphEdge[];
}

export interface Graph {
  width: number;
  height: number;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export const queueId = (name: string) => `q:${name}`;
export const exchangeId = (name: string) => `x:${name}`;
export const processId = (lane: string) => `p:${lane}`;

const ROW_GAP = 16;
const NODE_H = 140;
/** a process says its name, `process` and its state, and holds the deliveries it has: less room */
const PROCESS_H = 130;
const COL = { process: 150, exchange: 200, queue: 310, gap: 24, arcs: 100, bends: 36 };
/** a process's name is 25 px bold (page-style.ts .g-name): about 16 px a character; its column fits the longest, up to a limit */
const PROCESS_MAX_W = 250;
const processWidth = (names: readonly string[]) =>
  Math.min(PROCESS_MAX_W, Math.max(COL.process, ...names.map((n) => 24 + n.length * 17)));
/** a note's line (page-style.ts .g-note, 20 px) and about one character of it in DejaVu Sans */
export const LINE_H = 24;
const CHAR_W = 11.2;
const QUEUE_MAX_W = 420;

/** a node tall enough for its name, `lines` lines of notes, a row of tokens and the counts */
export const nodeHeight = (kind: GraphNode['kind'], lines: number) =>
  kind === 'process' ? PROCESS_H : Math.max(NODE_H, 58 + (lines - 1) * LINE_H + 78);

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

/** dead-letter routes from the queues' arguments: to an exchange, or through the default exchange to a queue */
export function deadLetterEdges(t: Topology): GraphEdge[] {
  const queues = new Set(t.queues.map((q) => q.name));
  const out: GraphEdge[] = [];
  for (const q of t.queues) {
    const a = q.args ?? {};
    const dlx = a['x-dead-letter-exchange'];
    if (dlx === undefined) continue;
    const key = a['x-dead-letter-routing-key'];
    // what the queue's own arguments let dead-letter it: a reject always, and what its limits add
    const why = [
      'rejected',
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
        label: `dead letter: ${why}${strategy}`,
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

export function buildGraph(t: Topology | null, lanes: readonly string[], extras: GraphExtras = {}): Graph {
  const exchanges = t?.exchanges ?? [];
  const queues = t?.queues ?? [];
  const left = lanes.filter(sends);
  const right = lanes.filter((l) => !sends(l));
  const room = extras.policyRoom ?? {};
  let x = 20;
  let bottom = 20 + ROW_GAP + NODE_H;
  const nodes: GraphNode[] = [];
  type Item = { id: string; kind: GraphNode['kind']; label: string; notes: string[]; policyLines?: number };
  const column = (items: Item[], w: number) => {
    if (items.length === 0) return;
    let y = 20;
    for (const it of items) {
      const h = nodeHeight(it.kind, it.notes.length + (it.policyLines ?? 0));
      nodes.push({ ...it, x, y, w, h });
      y += h + ROW_GAP;
    }
    bottom = Math.max(bottom, y);
    x += w + COL.gap;
  };
  column(
    left.map((l) => ({ id: processId(l), kind: 'process' as const, label: l, notes: ['process'] })),
    processWidth(left),
  );
  const tail = (name: string) => name.split('.').slice(-2).join('.');
  const binds = (x: string) =>
    (t?.bindings ?? [])
      .filter((b) => b.exchange === x)
      .flatMap((b) => [`→ ${tail(b.queue)}`, ...(b.key ? [`  key ${b.key}`] : [])]);
  const edges: GraphEdge[] = [
    ...(t?.bindings ?? []).map((b) => ({
      from: exchangeId(b.exchange),
      to: queueId(b.queue),
      kind: 'binding' as const,
      label: b.key ? `key ${b.key}` : 'bound',
    })),
    ...(t ? deadLetterEdges(t) : []),
    ...(extras.policyEdges ?? []),
  ];
  column(
    exchanges.map((e) => ({
      id: exchangeId(e.name),
      kind: 'exchange' as const,
      label: e.name,
      notes: [`${e.type} exchange`, ...binds(e.name)],
    })),
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
  // room for the dead-letter arcs between queues, when there are any
  if (edges.some((e) => e.from.startsWith('q:') && e.to.startsWith('q:'))) x += COL.arcs - COL.gap;
  column(
    right.map((l) => ({ id: processId(l), kind: 'process' as const, label: l, notes: ['process'] })),
    processWidth(right),
  );
  return {
    width: x,
    height: bottom - ROW_GAP + 16,
    nodes,
    edges,
  };
}
