/**
 * Dead-letter loops: a queue whose dead letters can be routed back into itself with no TTL hop on
 * the way comes straight back after every rejection — an endless, undelayed loop. A cycle that passes
 * through a queue with a message TTL is a delayed retry (the usual retry topology) and is fine.
 * Pure: works on what the management API reports (queues with their effective policy, exchanges,
 * bindings).
 */
import type { Management, QueueStats } from './management.js';
import { text } from '../core/text.js';

export interface QueueNode {
  name: string;
  arguments: Record<string, unknown>;
  /** the definition of the policy in effect on the queue, if any */
  policy?: Record<string, unknown> | null;
}

export interface ExchangeNode {
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

export function hasMessageTtl(q: QueueNode): boolean {
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
export interface Hop {
  queue: string;
  via: string[];
}

/**
 * Where each queue's dead letters go, as the broker would route them: the target exchange with the
 * dead-letter routing key, or without one with each key a message in the queue may carry (the keys
 * that bound it, or its name through the default exchange).
 */
export function deadLetterHops(
  queues: QueueNode[],
  exchanges: ExchangeNode[],
  bindings: Binding[],
): (q: QueueNode) => Hop[] {
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

  return (q) => {
    const t = deadLetterTarget(q);
    if (!t) return [];
    if (t.key !== null) return route(t.exchange, t.key);
    return keysInto(q.name).flatMap((k) => route(t.exchange, k));
  };
}

export function findDeadLetterLoops(
  queues: QueueNode[],
  exchanges: ExchangeNode[],
  bindings: Binding[],
): DeadLetterLoop[] {
  const byName = new Map(queues.map((q) => [q.name, q]));
  /** one dead-letter hop from q: the queues its dead letters reach */
  const hops = deadLetterHops(queues, exchanges, bindings);

  const loops: DeadLetterLoop[] = [];
  for (const start of queues) {
    if (hasMessageTtl(start)) continue; // a TTL queue in the cycle delays it: not an undelayed loop
    // depth-first over queues without a TTL, looking for the way back to start
    const stack: { queue: string; path: string[] }[] = [{ queue: start.name, path: [start.name] }];
    const visited = new Set<string>();
    let found: string[] | null = null;
    while (stack.length && !found) {
      const { queue, path } = stack.pop()!;
      const node = byName.get(queue);
      if (!node) continue;
      for (const h of hops(node)) {
        const next = [...path, ...h.via, h.queue];
        if (h.queue === start.name) {
          found = next;
          break;
        }
        const target = byName.get(h.queue);
        if (!target || hasMessageTtl(target) || visited.has(h.queue)) continue;
        visited.add(h.queue);
        stack.push({ queue: h.queue, path: next });
      }
    }
    if (found) loops.push({ queue: start.name, path: found });
  }
  return loops;
}
