/**
 * Where a message goes from an exchange of one vhost, as the broker routes it: the default exchange
 * by queue name; direct by equal key; topic by pattern (topic.ts); fanout to every binding;
 * exchange-to-exchange bindings followed; what no binding takes goes to the exchange's
 * alternate-exchange (argument, else policy), if any. Headers exchanges and plugin types are not
 * modelled: their routes are "unknown" and no finding rests on them.
 *
 * A message is described by the keys it may carry (a `Keys`): one routing key, or a topic pattern
 * (every key the pattern matches: what a topic binding let into a queue). The answer says which
 * queues some of those keys reach, and one key none reaches (a witness), if there is one.
 */
import { DEFAULT_EXCHANGES } from './definitions.js';
import { freshWord, isPattern, TopicTrie, topicMatch, words } from './topic.js';
import type { AuditBinding, AuditExchange } from './snapshot.js';

export interface Keys {
  /** a routing key, or with `pattern` a topic pattern (# = any key) */
  text: string;
  pattern: boolean;
  /**
   * a group: the keys of the letters many queues dead-letter into one exchange (its `text` names it,
   * unique in the vhost), routed once and shared by every queue that exchange feeds — linear where
   * copying the keys into each queue would be quadratic
   */
  group?: readonly Keys[];
}
export const ANY: Keys = { text: '#', pattern: true };
export const keyOf = (k: string): Keys => ({ text: k, pattern: false });

export interface Route {
  /** queue → the exchanges the message passed to reach it (the first one first) */
  queues: Map<string, string[]>;
  /** keys no binding takes (one witness per way in): the letters with them are dropped */
  dropped: string[];
  /** an exchange on the way whose routing is not modelled (headers, a plugin type), or null */
  unknown: string | null;
}

/** the dropped keys a group's route keeps as witnesses */
const WITNESSES = 20;

const BUILT_IN: Record<string, string> = {
  'amq.direct': 'direct',
  'amq.fanout': 'fanout',
  'amq.topic': 'topic',
  'amq.headers': 'headers',
  'amq.match': 'headers',
  'amq.rabbitmq.trace': 'topic',
};

interface Index {
  type: string;
  bindings: AuditBinding[];
  /** a fanout exchange that binds only queues: its route is the same whatever the key */
  keyless?: boolean;
  direct?: Map<string, AuditBinding[]>;
  trie?: TopicTrie<AuditBinding>;
}

export class Router {
  private readonly index = new Map<string, Index>();
  private readonly cache = new Map<string, Route>();

  constructor(
    exchanges: readonly AuditExchange[],
    bindings: readonly AuditBinding[],
    private readonly queueNames: ReadonlySet<string>,
    /** the alternate-exchange of an exchange (its argument, else its policy's key), or null */
    private readonly alternate: (exchange: string) => string | null,
  ) {
    for (const [name, type] of Object.entries(BUILT_IN)) this.index.set(name, { type, bindings: [] });
    for (const x of exchanges) this.index.set(x.name, { type: x.type, bindings: [] });
    for (const b of bindings) this.index.get(b.source)?.bindings.push(b);
    for (const x of this.index.values())
      x.keyless =
        x.type === 'fanout' && x.bindings.length > 0 && x.bindings.every((b) => b.destination_type === 'queue');
  }

  /** the bindings whose source is the exchange */
  bindingCount(exchange: string): number {
    return this.index.get(exchange)?.bindings.length ?? 0;
  }

  /** is there an exchange of that name (declared, or one every vhost has) */
  exists(exchange: string): boolean {
    return exchange === '' || this.index.has(exchange);
  }

  /**
   * The route of a message with keys `k` published to `exchange`, cached: one answer per exchange and
   * keys — and one per fanout exchange whatever the keys, when it binds only queues (the review's
   * D8 graph: a fanout dead-letter exchange bound to 5,000 queues, fed by 5,000 queues with a key each).
   */
  route(exchange: string, k: Keys): Route {
    const id = this.index.get(exchange)?.keyless
      ? `${exchange}\u0000fanout`
      : `${exchange}\u0000${k.group ? 'g' : k.pattern ? 'p' : 'k'}${k.text}`;
    let r = this.cache.get(id);
    if (!r) {
      r = k.group ? this.merge(exchange, k.group) : this.compute(exchange, k, new Set());
      this.cache.set(id, r);
    }
    return r;
  }

  /** a group's route: where each of its keys goes, together (a witness of each dropped key, at most WITNESSES) */
  private merge(exchange: string, group: readonly Keys[]): Route {
    const out: Route = { queues: new Map(), dropped: [], unknown: null };
    const dropped = new Set<string>();
    for (const k of group) {
      const r = this.route(exchange, k);
      for (const [q, via] of r.queues) if (!out.queues.has(q)) out.queues.set(q, via);
      for (const d of r.dropped) if (dropped.size < WITNESSES) dropped.add(d);
      out.unknown ??= r.unknown;
    }
    out.dropped = [...dropped];
    return out;
  }

  private compute(exchange: string, k: Keys, seen: Set<string>): Route {
    const out: Route = { queues: new Map(), dropped: [], unknown: null };
    if (exchange === '') {
      if (k.pattern) out.unknown = 'the default exchange with several keys';
      else if (this.queueNames.has(k.text)) out.queues.set(k.text, ['(default exchange)']);
      else out.dropped.push(k.text);
      return out;
    }
    const x = this.index.get(exchange);
    if (!x || seen.has(exchange)) {
      if (!x) out.dropped.push(k.text);
      return out;
    }
    seen.add(exchange);
    const { matched, dropped, unknown } = this.match(x, k);
    out.unknown = unknown;
    for (const b of matched) {
      if (b.destination_type === 'queue') {
        if (!out.queues.has(b.destination)) out.queues.set(b.destination, [exchange]);
        continue;
      }
      const inner = this.compute(b.destination, narrow(x.type, k, b.routing_key), seen);
      for (const [q, via] of inner.queues) if (!out.queues.has(q)) out.queues.set(q, [exchange, ...via]);
      out.unknown ??= inner.unknown;
      out.dropped.push(...inner.dropped);
    }
    const ae = dropped.length ? this.alternate(exchange) : null;
    if (ae === null) out.dropped.push(...dropped);
    else
      for (const key of dropped) {
        const inner = this.compute(ae, keyOf(key), seen);
        for (const [q, via] of inner.queues) if (!out.queues.has(q)) out.queues.set(q, [exchange, ...via]);
        out.unknown ??= inner.unknown;
        out.dropped.push(...inner.dropped);
      }
    seen.delete(exchange);
    return out;
  }

  /** the bindings of one exchange some of the keys take, and a key none takes */
  private match(x: Index, k: Keys): { matched: AuditBinding[]; dropped: string[]; unknown: string | null } {
    switch (x.type) {
      case 'fanout':
        return { matched: x.bindings, dropped: x.bindings.length ? [] : [k.text], unknown: null };
      case 'direct': {
        x.direct ??= groupBy(x.bindings, (b) => b.routing_key);
        if (!k.pattern)
          return { matched: x.direct.get(k.text) ?? [], dropped: x.direct.has(k.text) ? [] : [k.text], unknown: null };
        const p = words(k.text);
        const matched = [...x.direct].filter(([key]) => topicMatch(p, words(key))).flatMap(([, bs]) => bs);
        // a pattern's keys are infinitely many; bindings name some: the others are dropped
        const other = freshWord(new Set([...x.direct.keys()].flatMap((key) => words(key))));
        return {
          matched,
          dropped: [
            k.text
              .split('.')
              .map((w) => (w === '*' || w === '#' ? other : w))
              .join('.'),
          ],
          unknown: null,
        };
      }
      case 'topic': {
        if (!x.trie) {
          x.trie = new TopicTrie<AuditBinding>();
          for (const b of x.bindings) x.trie.add(b.routing_key, b);
        }
        const matched = [...x.trie.reach(k.text, !k.pattern)];
        const witness = k.pattern ? x.trie.unreached(k.text) : matched.length ? null : k.text;
        return { matched, dropped: witness === null ? [] : [witness], unknown: null };
      }
      default:
        return { matched: [], dropped: [], unknown: `exchange of type ${x.type}` };
    }
  }
}

/** the keys that go on through an exchange-to-exchange binding with key `bk` */
function narrow(type: string, k: Keys, bk: string): Keys {
  if (type === 'fanout' || !k.pattern) return k;
  if (type === 'direct' || !isPattern(bk)) return keyOf(bk);
  return k.text === '#' ? { text: bk, pattern: true } : k;
}

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const t of items) {
    const k = key(t);
    if (!m.has(k)) m.set(k, []);
    m.get(k)!.push(t);
  }
  return m;
}

/** the default exchanges by name: an export never lists them, every vhost has them */
export const isDefaultExchange = (name: string) => DEFAULT_EXCHANGES.includes(name);
