/**
 * The dead-letter routes of one vhost, from src/broker/dlx-graph.ts (the `status` lint): where each
 * queue's letters go, the undelayed loops, and the retry cycles that pass through a TTL queue.
 */
import {
  deadLetterHops,
  deadLetterTarget,
  findDeadLetterLoops,
  hasMessageTtl,
  type DeadLetterLoop,
  type Hop,
  type QueueNode,
} from '../broker/dlx-graph.js';
import type { AuditBinding, AuditExchange, AuditQueue, Snapshot } from './snapshot.js';

export interface VhostGraph {
  vhost: string;
  queues: AuditQueue[];
  byName: Map<string, AuditQueue>;
  exchanges: Map<string, AuditExchange>;
  bindings: AuditBinding[];
  node(q: AuditQueue): QueueNode;
  hops(q: AuditQueue): Hop[];
  loops(): DeadLetterLoop[];
  /** queues some other queue dead-letters into */
  deadLetterTargets(): Set<string>;
  /** for a queue without a TTL: a dead-letter cycle back to it that passes a TTL queue (a delayed retry), or null */
  retryCycle(q: AuditQueue): string[] | null;
}

const node = (q: AuditQueue): QueueNode => ({ name: q.name, arguments: q.arguments, policy: q.policy });

const built = new WeakMap<Snapshot, VhostGraph[]>();

/** one graph per vhost of the snapshot, built once for all the checks */
export function graphs(s: Snapshot): VhostGraph[] {
  if (!built.has(s))
    built.set(
      s,
      s.vhosts.map((vhost) => graph(vhost, s)),
    );
  return built.get(s)!;
}

function graph(vhost: string, s: Snapshot): VhostGraph {
  const queues = s.queues.filter((q) => q.vhost === vhost);
  const exchanges = s.exchanges.filter((x) => x.vhost === vhost);
  const bindings = s.bindings.filter((b) => b.vhost === vhost);
  const byName = new Map(queues.map((q) => [q.name, q]));
  const nodes = queues.map(node);
  const hopsOf = deadLetterHops(nodes, exchanges, bindings);
  const memo = new Map<string, Hop[]>();
  const hops = (q: AuditQueue) => memo.get(q.name) ?? (memo.set(q.name, hopsOf(node(q))), memo.get(q.name)!);
  let targets: Set<string> | null = null;
  return {
    vhost,
    queues,
    byName,
    exchanges: new Map(exchanges.map((x) => [x.name, x])),
    bindings,
    node,
    hops,
    loops: () => findDeadLetterLoops(nodes, exchanges, bindings),
    deadLetterTargets: () => {
      if (!targets)
        targets = new Set(queues.filter((q) => deadLetterTarget(node(q))).flatMap((q) => hops(q).map((h) => h.queue)));
      return targets;
    },
    retryCycle(start) {
      if (hasMessageTtl(node(start)) || !deadLetterTarget(node(start))) return null;
      // breadth-first over dead-letter hops, back to start with a TTL queue on the way
      const seen = new Set<string>([start.name]);
      const queue: { name: string; path: string[]; ttl: boolean }[] = [
        { name: start.name, path: [start.name], ttl: false },
      ];
      while (queue.length) {
        const at = queue.shift()!;
        const q = byName.get(at.name);
        if (!q) continue;
        for (const h of hops(q)) {
          const path = [...at.path, ...h.via, h.queue];
          const next = byName.get(h.queue);
          const ttl = at.ttl || (next ? hasMessageTtl(node(next)) : false);
          if (h.queue === start.name) {
            if (at.ttl) return path;
            continue;
          }
          if (seen.has(h.queue)) continue;
          seen.add(h.queue);
          queue.push({ name: h.queue, path, ttl });
        }
      }
      return null;
    },
  };
}
