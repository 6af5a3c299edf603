/**
 * The dead-letter routes of each vhost, worked out once for every check: for each queue with a
 * dead-letter exchange, the keys its letters carry (its dead-letter routing key, else the keys that
 * bring messages into it: its bindings' keys or patterns, else its name through the default
 * exchange), where each goes (routes.ts), and the cycles of the graph they make (cycles.ts): loops
 * with no TTL queue on the way, and retry cycles through one.
 */
import { text } from '../core/text.js';
import { cyclicComponents, shortestPath } from '../core/cycles.js';
import type { PolicyOutcome } from './policies.js';
import { ANY, keyOf, Router, type Keys, type Route } from './routes.js';
import { setting, type Setting } from './settings.js';
import type { AuditExchange, AuditQueue, Snapshot } from './snapshot.js';
import type { Version } from './target.js';
import type { Ticker } from './ticker.js';
import { isPattern } from './topic.js';

export interface DeadLetter {
  queue: AuditQueue;
  exchange: string;
  exchangeFrom: string;
  /** the dead-letter routing key, or null: the letters keep their keys */
  key: string | null;
  keyFrom: string | null;
  /** what the letters carry: one key (the dead-letter routing key), or the keys that bring messages in */
  keys: Keys[];
  routes: Route[];
}

interface Cycle {
  queues: string[];
  /** one way round, queues and exchanges alternating: [q, x, q2, x2, q] */
  path: string[];
}

export interface VhostModel {
  vhost: string;
  queues: AuditQueue[];
  byName: Map<string, AuditQueue>;
  exchanges: Map<string, AuditExchange>;
  router: Router;
  deadLetters: Map<string, DeadLetter>;
  /** queues with a message TTL (argument or policy): a pass through them waits */
  ttl: Set<string>;
  /** the routes that take letters into a queue (each shared by the queues that send them) */
  routesInto: Map<string, Route[]>;
  /** the queues whose letters take a route, and the dead-letter exchange it starts at */
  routeFrom: Map<Route, { exchange: string; queues: string[] }>;
  /** cycles with no TTL queue on the way: a letter comes straight back */
  loops: Cycle[];
  /** cycles through a TTL queue: a delayed retry with no bound in the broker */
  retries: Cycle[];
}

export interface Model {
  snapshot: Snapshot;
  target: Version;
  vhosts: VhostModel[];
  /** the queues where a fitting policy did not apply (policies.ts applyPolicies) */
  outcomes?: PolicyOutcome[];
}

export async function buildModel(snapshot: Snapshot, target: Version, tick: Ticker): Promise<Model> {
  const vhosts: VhostModel[] = [];
  const byVhost = <T extends { vhost: string }>(items: readonly T[]) => {
    const m = new Map<string, T[]>();
    for (const i of items) (m.get(i.vhost) ?? m.set(i.vhost, []).get(i.vhost)!).push(i);
    return m;
  };
  const [queues, exchanges, bindings] = [
    byVhost(snapshot.queues),
    byVhost(snapshot.exchanges),
    byVhost(snapshot.bindings),
  ];
  const policies = byVhost(snapshot.policies ?? []);
  for (const vhost of snapshot.vhosts)
    vhosts.push(
      await vhostModel(
        vhost,
        queues.get(vhost) ?? [],
        exchanges.get(vhost) ?? [],
        bindings.get(vhost) ?? [],
        policies.get(vhost) ?? [],
        target,
        tick,
      ),
    );
  return { snapshot, target, vhosts };
}

async function vhostModel(
  vhost: string,
  queues: AuditQueue[],
  exchangeList: AuditExchange[],
  bindings: Snapshot['bindings'],
  policies: NonNullable<Snapshot['policies']>,
  target: Version,
  tick: Ticker,
): Promise<VhostModel> {
  const byName = new Map(queues.map((q) => [q.name, q]));
  const exchanges = new Map(exchangeList.map((x) => [x.name, x]));
  const policyDefs = new Map(policies.filter((p) => !p.operator).map((p) => [p.name, p.definition]));
  const alternate = (x: string) => {
    const e = exchanges.get(x);
    const ae =
      e?.arguments['alternate-exchange'] ??
      (e?.policyName ? policyDefs.get(e.policyName)?.['alternate-exchange'] : undefined);
    return typeof ae === 'string' ? ae : null;
  };
  const router = new Router(exchangeList, bindings, new Set(byName.keys()), alternate);
  const types = new Map(exchangeList.map((x) => [x.name, x.type]));
  for (const [x, t] of [
    ['amq.direct', 'direct'],
    ['amq.topic', 'topic'],
    ['amq.fanout', 'fanout'],
  ])
    types.set(x!, t!);

  // the keys a binding lets into each queue: a direct key, a topic pattern, or (fanout, headers, a
  // plugin type) any key — then the keys of whatever is published to that exchange
  const inbound = new Map<string, { keys: Keys[]; anyFrom: string[] }>();
  for (const b of bindings) {
    if (b.destination_type !== 'queue' || b.source === '' || !types.has(b.source)) continue;
    const t = types.get(b.source);
    const into =
      inbound.get(b.destination) ?? inbound.set(b.destination, { keys: [], anyFrom: [] }).get(b.destination)!;
    if (t === 'direct') into.keys.push(keyOf(b.routing_key));
    else if (t === 'topic') into.keys.push({ text: b.routing_key, pattern: isPattern(b.routing_key) });
    else into.anyFrom.push(b.source);
  }

  const ttl = new Set<string>();
  const settings = new Map<string, { dlx: Setting; rk: Setting | null }>();
  const viaDefault = new Set<string>();
  for (const q of queues) {
    const turn = tick();
    if (turn) await turn;
    if (q.type === 'stream') continue;
    if (setting(q, 'message-ttl', target)) ttl.add(q.name);
    const dlx = setting(q, 'dead-letter-exchange', target);
    if (!dlx) continue;
    const rk = setting(q, 'dead-letter-routing-key', target);
    settings.set(q.name, { dlx, rk });
    if (text(dlx.value) === '' && rk) viaDefault.add(text(rk.value));
  }

  // an exchange that is some queues' dead-letter exchange carries their letters' keys (publishers may
  // use it too: the audit takes it for what it is declared as)
  const dlxUsers = new Map<string, string[]>();
  for (const [name, s] of settings) {
    const x = text(s.dlx.value);
    (dlxUsers.get(x) ?? dlxUsers.set(x, []).get(x)!).push(name);
  }
  // past a few feeders (a fanout dead-letter exchange of thousands of queues) their keys as one group,
  // made once per exchange and shared: linear, not quadratic, and still the keys the letters carry
  const groups = new Map<string, Keys>();
  const groupOf = (x: string, users: readonly string[], depth: number): Keys => {
    let g = groups.get(x);
    if (!g) {
      groups.set(x, ANY); // while it is being made: a way back into it carries any key
      const members = distinct(users.flatMap((u) => keysOf(u, depth + 1)));
      g = {
        text: `(the letters ${users.length} queues dead-letter to ${x === '' ? 'the default exchange' : x})`,
        pattern: true,
        group: members,
      };
      groups.set(x, members.includes(ANY) ? ANY : g);
    }
    return groups.get(x)!;
  };
  const keysOf = (name: string, depth = 0): Keys[] => {
    const rk = settings.get(name)?.rk;
    if (rk && depth > 0) return [keyOf(text(rk.value))];
    const into = inbound.get(name);
    const keys = [...(into?.keys ?? [])];
    for (const x of into?.anyFrom ?? []) {
      const users = dlxUsers.get(x);
      if (!users?.length || depth >= 3) keys.push(ANY);
      else if (users.length > 16) keys.push(groupOf(x, users, depth));
      else for (const u of users) keys.push(...keysOf(u, depth + 1));
    }
    return carried(name, keys, viaDefault.has(name));
  };

  const deadLetters = new Map<string, DeadLetter>();
  const routesInto = new Map<string, Route[]>();
  const routeFrom = new Map<Route, { exchange: string; queues: string[] }>();
  for (const q of queues) {
    const turn = tick();
    if (turn) await turn;
    const s = settings.get(q.name);
    if (!s) continue;
    const keys = s.rk ? [keyOf(text(s.rk.value))] : keysOf(q.name);
    const exchange = text(s.dlx.value);
    const routes = keys.map((k) => router.route(exchange, k));
    deadLetters.set(q.name, {
      queue: q,
      exchange,
      exchangeFrom: s.dlx.from,
      key: s.rk ? text(s.rk.value) : null,
      keyFrom: s.rk?.from ?? null,
      keys,
      routes,
    });
    for (const r of routes) {
      const from = routeFrom.get(r);
      if (from) {
        if (from.queues[from.queues.length - 1] !== q.name) from.queues.push(q.name);
        continue;
      }
      // a route new to the graph: its targets once (a fanout route is shared by every queue that feeds it)
      routeFrom.set(r, { exchange, queues: [q.name] });
      for (const target of r.queues.keys()) (routesInto.get(target) ?? routesInto.set(target, []).get(target)!).push(r);
    }
  }

  const { loops, retries } = await findCycles(queues, deadLetters, ttl, tick);
  return { vhost, queues, byName, exchanges, router, deadLetters, ttl, routesInto, routeFrom, loops, retries };
}

/** the keys a message in the queue may carry: its bindings' keys, else (or also, when letters come to it by name) its name */
function carried(name: string, bound: Keys[] | undefined, byName: boolean): Keys[] {
  const keys = [...(bound ?? [])];
  if (!keys.length || byName) keys.push(keyOf(name));
  return distinct(keys);
}

/** each key once; any key (#) stands for all */
function distinct(keys: readonly Keys[]): Keys[] {
  if (keys.some((k) => k.pattern && k.text === '#')) return [ANY];
  const seen = new Set<string>();
  return keys.filter((k) => {
    const id = `${k.group ? 'g' : k.pattern ? 'p' : 'k'}${k.text}`;
    return !seen.has(id) && Boolean(seen.add(id));
  });
}

/**
 * The graph: a node per queue and per distinct route (an exchange and the keys sent to it, shared by
 * every queue that sends them), an edge from a queue to its routes and from a route to the queues
 * it reaches. A fanout dead-letter exchange is one node, not an edge between every pair of queues.
 */
async function findCycles(
  queues: AuditQueue[],
  deadLetters: Map<string, DeadLetter>,
  ttl: Set<string>,
  tick: Ticker,
): Promise<{ loops: Cycle[]; retries: Cycle[] }> {
  const id = new Map(queues.map((q, i) => [q.name, i]));
  const routeId = new Map<Route, number>();
  const routeExchange: string[] = [];
  const NONE: number[] = [];
  const out: number[][] = queues.map(() => NONE);
  for (const [i, q] of queues.entries()) {
    const dl = deadLetters.get(q.name);
    if (!dl) continue;
    out[i] = [];
    for (const r of dl.routes) {
      if (!routeId.has(r)) {
        routeId.set(r, out.length);
        routeExchange.push(dl.exchange);
        const to: number[] = [];
        for (const n of r.queues.keys()) if (id.has(n)) to.push(id.get(n)!);
        out.push(to);
      }
      out[i].push(routeId.get(r)!);
    }
  }
  const isQueue = (n: number) => n < queues.length;
  // the edges without TTL queues, worked out once (the loop search asks each node's edges once)
  const ttlFlags = new Uint8Array(out.length);
  for (const [i, q] of queues.entries()) if (ttl.has(q.name)) ttlFlags[i] = 1;
  const delayed = (n: number) => ttlFlags[n] === 1;
  const withoutTtl = ttl.size ? out.map((es, n) => (delayed(n) ? NONE : es.filter((m) => !delayed(m)))) : out;
  const all = (n: number) => out[n]!;
  const undelayed = (n: number) => withoutTtl[n]!;
  const cycle = (component: number[], edges: (n: number) => readonly number[], through?: number): Cycle => {
    const within = new Set(component);
    const start = least(component.filter((n) => isQueue(n) && !delayed(n)));
    const nodes =
      through === undefined
        ? shortestPath(start, start, within, edges)
        : [...shortestPath(start, through, within, edges), ...shortestPath(through, start, within, edges).slice(1)];
    const path: string[] = [];
    for (let k = 0; k < nodes.length; k++) {
      const n = nodes[k]!;
      if (isQueue(n)) path.push(queues[n]!.name);
      else {
        // the exchanges on the way to the next queue
        const via = [...deadLetters.get(queues[nodes[k - 1]!]!.name)!.routes].find((r) => routeId.get(r) === n)!;
        path.push(...(via.queues.get(queues[nodes[k + 1]!]!.name) ?? [routeExchange[n - queues.length]!]));
      }
    }
    return { queues: component.filter(isQueue).map((n) => queues[n]!.name), path };
  };
  const turn = tick();
  if (turn) await turn;
  const loops = cyclicComponents(out.length, undelayed).map((c) => cycle(c, undelayed));
  const retries = cyclicComponents(out.length, all)
    .filter((c) => c.some(delayed) && c.some((n) => isQueue(n) && !delayed(n)))
    .map((c) => cycle(c, all, least(c.filter(delayed))));
  return { loops, retries };
}

/** the smallest of many numbers (a spread of 100,000 arguments would overflow the stack) */
const least = (ns: number[]) => ns.reduce((a, b) => Math.min(a, b), Infinity);

/** the queues whose dead letters reach `queue` (walks the routes into it: call it for a few queues, not all) */
export function sourcesOf(m: VhostModel, queue: string): Set<string> {
  return new Set((m.routesInto.get(queue) ?? []).flatMap((r) => m.routeFrom.get(r)!.queues));
}
