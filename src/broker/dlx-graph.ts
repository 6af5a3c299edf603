/**
 * Dead-letter loops: a queue whose dead letters can be routed back into itself with no TTL hop on
 * the way comes straight back after every rejection — an endless, undelayed loop. A cycle that passes
 * through a queue with a message TTL is a delayed retry (the usual retry topology) and is fine.
 * Pure: works on what the management API reports (queues with their effective policy, exchanges,
 * bindings).
 */
import { cyclicComponents } from '../core/cycles.js';
import type { Management, QueueStats } from './management.js';
import { text } from '../core/text.js';

export interface QueueNode {
  name: string;
  arguments: Record<string, unknown>;
  /** the definition of the policy in effect on the queue, if any */
  policy?: Record<string, unknown> | null;
}

interface ExchangeNode {
  name: string;
  type: string;
}

export interface Binding {
  source: string;
  destination: string;
  destination_type: 'queue' | 'exchange';
  routing_key: string;
}

export interface DeadLetterLoop {
  queue: string;
  /** the path the broker would take, e.g. ['q', 'dlx', 'q'] (queues and exchanges alternate) */
  path: string[];
}

interface Target {
  exchange: string;
  /** null: the message keeps the routing key(s) it was published with */
  key: string | null;
}

/** where a queue dead-letters to: queue arguments win over the policy, as in RabbitMQ */
export function deadLetterTarget(q: QueueNode): Target | null {
  const arg = (k: string) => q.arguments[`x-${k}`] ?? q.policy?.[k];
  const exchange = arg('dead-letter-exchange');
  if (exchange === undefined || exchange === null) return null;
  const key = arg('dead-letter-routing-key');
  return { exchange: text(exchange), key: key === undefined || key === null ? null : text(key) };
}

function hasMessageTtl(q: QueueNode): boolean {
  return q.arguments['x-message-ttl'] !== undefined || q.policy?.['message-ttl'] !== undefined;
}

/** topic pattern match: * one word, # zero or more words */
export function topicMatches(pattern: string, key: string): boolean {
  const p = pattern.split('.');
  const k = key.split('.');
  const go = (i: number, j: number): boolean => {
    if (i === p.length) return j === k.length;
    if (p[i] === '#') return go(i + 1, j) || (j < k.length && go(i, j + 1));
    return j < k.length && (p[i] === '*' || p[i] === k[j]) && go(i + 1, j + 1);
  };
  return go(0, 0);
}

/**
 * The loops in the management API's vhost, as it reports queues (with their policies), exchanges
 * and bindings; pass the queues when the caller has them already.
 */
export async function vhostDeadLetterLoops(mgmt: Management, known?: QueueStats[]): Promise<DeadLetterLoop[]> {
  const [queues, exchanges, bindings] = await Promise.all([known ?? mgmt.queues(), mgmt.exchanges(), mgmt.bindings()]);
  return findDeadLetterLoops(
    queues.map((q) => ({ name: q.name, arguments: q.arguments, policy: q.policyDefinition })),
    exchanges,
    bindings,
  );
}

/** a dead-letter hop: the queue a letter reaches, through these exchanges */
interface Hop {
  queue: string;
  via: string[];
}

/**
 * Where each queue's dead letters go, as the broker would route them: the target exchange with the
 * dead-letter routing key, or without one with each key a message in the queue may carry (the keys
 * that bound it, or its name through the default exchange); as one list per key the queue's letters
 * may carry; the lists are shared: one per
 * exchange and key, and one per fanout exchange whatever the key (security review D8: a fanout
 * dead-letter exchange bound to 5,000 queues, fed by 5,000 queues, is 5,000 lists, not 25 million hops).
 */
function deadLetterRoutes(
  queues: QueueNode[],
  exchanges: ExchangeNode[],
  bindings: Binding[],
): (q: QueueNode) => Hop[][] {
  const byName = new Set(queues.map((q) => q.name));
  const types = new Map(exchanges.map((x) => [x.name, x.type]));

  // indexed once: a vhost may hold thousands of queues and bindings
  const from = new Map<string, Binding[]>();
  const into = new Map<string, string[]>();
  for (const b of bindings) {
    if (!from.has(b.source)) from.set(b.source, []);
    from.get(b.source)!.push(b);
    if (b.destination_type !== 'queue') continue;
    if (!into.has(b.destination)) into.set(b.destination, []);
    into.get(b.destination)!.push(b.routing_key);
  }
  /** the routing keys a message in queue q may carry: the keys that bound it, or its name (default exchange) */
  const keysInto = (q: string) => [q, ...(into.get(q) ?? [])];

  /** queues reached from exchange x with key (null: any key the message may carry), with the exchanges passed */
  function route(x: string, key: string | null, seen = new Set<string>()): Hop[] {
    if (x === '') return key === null ? [] : byName.has(key) ? [{ queue: key, via: ['(default exchange)'] }] : [];
    if (seen.has(x)) return [];
    seen.add(x);
    const type = types.get(x) ?? 'direct';
    const out: Hop[] = [];
    for (const b of from.get(x) ?? []) {
      const matches =
        key === null ||
        type === 'fanout' ||
        type === 'headers' ||
        (type === 'topic' ? topicMatches(b.routing_key, key) : b.routing_key === key);
      if (!matches) continue;
      if (b.destination_type === 'queue') out.push({ queue: b.destination, via: [x] });
      else for (const r of route(b.destination, key, seen)) out.push({ queue: r.queue, via: [x, ...r.via] });
    }
    return out;
  }
  const keyless = (x: string) =>
    types.get(x) === 'fanout' && (from.get(x) ?? []).every((b) => b.destination_type === 'queue');
  const cache = new Map<string, Hop[]>();
  const cached = (x: string, key: string | null) => {
    const id = keyless(x) ? `${x}\u0000*` : `${x}\u0000${key ?? '\u0000'}`;
    let r = cache.get(id);
    if (!r) cache.set(id, (r = route(x, key)));
    return r;
  };

  return (q) => {
    const t = deadLetterTarget(q);
    if (!t) return [];
    if (t.key !== null) return [cached(t.exchange, t.key)];
    return [...new Set(keysInto(q.name).map((k) => cached(t.exchange, k)))];
  };
}

/**
 * Every queue on a dead-letter loop with no TTL queue on the way, with one way round through it.
 * Linear in the graph (core/cycles.ts): a node per queue without a TTL and per shared route list.
 */
export function findDeadLetterLoops(
  queues: QueueNode[],
  exchanges: ExchangeNode[],
  bindings: Binding[],
): DeadLetterLoop[] {
  const routes = deadLetterRoutes(queues, exchanges, bindings);
  const id = new Map<string, number>();
  const nodes: { queue: QueueNode | null; hops: Hop[] | null }[] = [];
  for (const q of queues) if (!hasMessageTtl(q)) id.set(q.name, nodes.push({ queue: q, hops: null }) - 1);
  const routeId = new Map<Hop[], number>();
  const out: number[][] = nodes.map(() => []);
  for (const [name, n] of [...id]) {
    for (const r of routes(nodes[n]!.queue!)) {
      if (!routeId.has(r)) {
        routeId.set(r, nodes.push({ queue: null, hops: r }) - 1);
        out.push([...new Set(r.filter((h) => id.has(h.queue)).map((h) => id.get(h.queue)!))]);
      }
      out[id.get(name)!]!.push(routeId.get(r)!);
    }
  }
  const loops: DeadLetterLoop[] = [];
  for (const component of cyclicComponents(nodes.length, (n) => out[n]!)) {
    const within = new Set(component);
    const root = component.find((n) => nodes[n]!.queue)!;
    // shortest ways from the root to each node, and from each node back to the root
    const forward = bfs(root, (n) => out[n]!.filter((m) => within.has(m)));
    const reverse = new Map<number, number[]>();
    for (const n of component)
      for (const m of out[n]!) if (within.has(m)) reverse.set(m, [...(reverse.get(m) ?? []), n]);
    const back = bfs(root, (n) => reverse.get(n) ?? []);
    for (const n of component) {
      if (!nodes[n]!.queue) continue;
      // straight back in one hop, else n → … → root → … → n; for the root, its shortest way round
      const direct = out[n]!.find((r) => out[r]!.includes(n));
      if (direct !== undefined) {
        loops.push({ queue: nodes[n]!.queue.name, path: pathOf([n, direct, n], nodes) });
        continue;
      }
      const there = n === root ? [root] : walk(back, n).reverse(); // n … root
      const home = n === root ? roundTrip(root, out, within) : walk(forward, n); // root … n
      const ids = n === root ? home : [...there, ...home.slice(1)];
      loops.push({ queue: nodes[n]!.queue.name, path: pathOf(ids, nodes) });
    }
  }
  return loops.sort((a, b) => id.get(a.queue)! - id.get(b.queue)!);
}

/** breadth-first parents from `root` along `next` */
function bfs(root: number, next: (n: number) => readonly number[]): Map<number, number> {
  const parent = new Map<number, number>([[root, root]]);
  const todo = [root];
  for (let k = 0; k < todo.length; k++)
    for (const m of next(todo[k]!))
      if (!parent.has(m)) {
        parent.set(m, todo[k]!);
        todo.push(m);
      }
  return parent;
}

/** the nodes from the root to n, following the parents back */
function walk(parent: Map<number, number>, n: number): number[] {
  const ids = [n];
  for (let at = n; parent.get(at) !== at; at = parent.get(at)!) ids.push(parent.get(at)!);
  return ids.reverse();
}

/** a shortest cycle from the root back to itself */
function roundTrip(root: number, out: number[][], within: Set<number>): number[] {
  const parent = bfs(root, (n) => out[n]!.filter((m) => within.has(m) && m !== root));
  for (const n of parent.keys()) if (out[n]!.includes(root)) return [...walk(parent, n), root];
  return [root];
}

/** queue names and the exchanges between them */
function pathOf(ids: number[], nodes: { queue: QueueNode | null; hops: Hop[] | null }[]): string[] {
  const path: string[] = [];
  for (let k = 0; k < ids.length; k++) {
    const node = nodes[ids[k]!]!;
    if (node.queue) path.push(node.queue.name);
    else {
      const next = nodes[ids[k + 1]!]?.queue?.name;
      path.push(...(node.hops!.find((h) => h.queue === next)?.via ?? []));
    }
  }
  return path;
}
