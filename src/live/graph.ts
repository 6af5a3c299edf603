/**
 * The lab's topology as a graph for the bench page, from its topology data only: exchanges and
 * queues (type, TTL, limits, dead-letter strategy on the node), bindings and dead-letter routes
 * (with the reason they carry) as edges, and the run's processes beside them: those whose name says
 * they send (producer, relay, publisher) on the left, the others on the right. Pure geometry.
 */
import type { Topology, QueueSpec } from '../broker/topology.js';
import { text } from '../text.js';

export interface GraphNode {
  id: string;
  kind: 'exchange' | 'queue' | 'process';
  label: string;
  /** the lines under the name: type, TTL, limits, strategy */
  notes: string[];
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

const ROW = 200;
const NODE_H = 184;
const COL = { process: 150, exchange: 200, queue: 310, gap: 24, arcs: 100 };

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

export function buildGraph(t: Topology | null, lanes: readonly string[]): Graph {
  const exchanges = t?.exchanges ?? [];
  const queues = t?.queues ?? [];
  const left = lanes.filter(sends);
  const right = lanes.filter((l) => !sends(l));
  let x = 20;
  const nodes: GraphNode[] = [];
  const column = (items: { id: string; kind: GraphNode['kind']; label: string; notes: string[] }[], w: number) => {
    if (items.length === 0) return;
    items.forEach((it, i) => nodes.push({ ...it, x, y: 20 + i * ROW, w, h: NODE_H }));
    x += w + COL.gap;
  };
  column(
    left.map((l) => ({ id: processId(l), kind: 'process' as const, label: l, notes: ['process'] })),
    COL.process,
  );
  const tail = (name: string) => name.split('.').slice(-2).join('.');
  const binds = (x: string) =>
    (t?.bindings ?? [])
      .filter((b) => b.exchange === x)
      .flatMap((b) => [`→ ${tail(b.queue)}`, ...(b.key ? [`  key ${b.key}`] : [])]);
  column(
    exchanges.map((e) => ({
      id: exchangeId(e.name),
      kind: 'exchange' as const,
      label: e.name,
      notes: [`${e.type} exchange`, ...binds(e.name)],
    })),
    COL.exchange,
  );
  column(
    queues.map((q) => ({
      id: queueId(q.name),
      kind: 'queue' as const,
      label: q.name,
      notes: [...queueNotes(q), ...deadLetterNote(q, tail)],
    })),
    COL.queue,
  );
  if (queues.length) x += COL.arcs - COL.gap; // room for the dead-letter arcs between queues
  column(
    right.map((l) => ({ id: processId(l), kind: 'process' as const, label: l, notes: ['process'] })),
    COL.process,
  );
  const bindings: GraphEdge[] = (t?.bindings ?? []).map((b) => ({
    from: exchangeId(b.exchange),
    to: queueId(b.queue),
    kind: 'binding',
    label: b.key ? `key ${b.key}` : 'bound',
  }));
  const rows = Math.max(1, left.length, exchanges.length, queues.length, right.length);
  return { width: x, height: 20 + rows * ROW, nodes, edges: [...bindings, ...(t ? deadLetterEdges(t) : [])] };
}
