/**
 * At a pause the broker's reading wins over the lab's events: a token the events left in a queue that
 * the pause's reading counts fewer messages in is taken off the queue, one they left at an exchange
 * (which holds no message) goes to a queue it is bound to that has room, and the step says where the
 * letter went as far as the broker shows it — on a TTL hop the view saw it leave, dead-lettered to an
 * exchange the broker binds to no queue (dropped), or only "gone by this reading". Events can disagree
 * with the broker: two processes log one moment in either order (a reject logged before the publish's
 * confirm), and a timed hop moves a message with no event at all. Pure.
 */
import type { CheckpointView } from '../core/checkpoint-view.js';

/** a token as steps.ts keeps it: where it was last seen, its label, settled or not */
interface TokenAt {
  at: string;
  label: string;
  done: boolean;
}

/** a token the reading does not find where the events put it */
interface Gone {
  /** the token's key (steps.ts) */
  token: string;
  label: string;
  /** the queue the events put it in (or the exchange, with `exchange`) */
  queue: string;
  /** the events left it at an exchange, which holds no message */
  exchange?: boolean;
  /** the messages the reading counts in that queue */
  counted: number;
  /** where it went, as far as the broker shows it */
  went: string;
  /** the queue node it is drawn in now, when the reading shows where (a TTL hop's next queue); else it is not drawn */
  to?: string;
}

/** the graph's dead-letter routes (queue node → exchange or queue node), the lab's exchanges, its queues with a TTL */
interface Routes {
  deadLetter: ReadonlyMap<string, string>;
  exchanges: ReadonlySet<string>;
  ttl: ReadonlySet<string>;
}

/** a name's last two parts (me12.retry.drop.dlx → drop.dlx), as the graph's notes say it */
const tail = (name: string) => name.split('.').slice(-2).join('.');

/** where a letter that left `queue` went, as the reading shows it */
function whereTo(queue: string, view: CheckpointView, routes: Routes): string {
  // the queue's own dead-letter route, else the one the policy in force at the reading gives it
  const policy = view.broker?.policies[view.queues.findIndex((q) => q.queue === queue)]?.definition;
  const dlx = policy?.['dead-letter-exchange'];
  const to = routes.deadLetter.get(`q:${queue}`) ?? (typeof dlx === 'string' && dlx ? `x:${dlx}` : undefined);
  const bindings = view.broker?.bindings;
  if (to?.startsWith('x:') && routes.exchanges.has(to.slice(2)) && bindings) {
    const x = to.slice(2);
    const bound = [...new Set(bindings.filter((b) => b.exchange === x).map((b) => tail(b.queue)))];
    if (!bound.length) return `dead-lettered to ${tail(x)}, which the broker binds to no queue now: dropped`;
    return `gone by this reading (its dead letters go to ${tail(x)} → ${bound.join(', ')})`;
  }
  if (to && routes.ttl.has(queue)) return `gone by this reading (its TTL sends it on to ${tail(to.slice(2))})`;
  return 'gone by this reading';
}

/**
 * the tokens the view's reading does not count where the events put them (the caller takes them off):
 * the view's message where it saw it leave a queue (leftQueue), then per queue whose three counts the
 * reading has, the tokens beyond its count — the longest there first (a queue delivers its head first),
 * the view's own message last
 */
export function notCounted(
  tokens: Record<string, TokenAt>,
  view: CheckpointView,
  own: string | undefined,
  routes: Routes,
): Gone[] {
  const out: Gone[] = [];
  const left = view.message?.leftQueue;
  if (left && own && tokens[own]?.at === `q:${left}`) {
    const ready = view.queues.find((q) => q.queue === left)?.ready ?? 0;
    out.push({ token: own, label: tokens[own].label, queue: left, counted: ready, went: 'its TTL sent it on' });
  }
  for (const q of view.queues) {
    if (q.ready === null || q.unacked === null || q.held === null) continue;
    const counted = q.ready + q.unacked + q.held;
    const here = Object.entries(tokens)
      .filter(([k, t]) => t.at === `q:${q.queue}` && !t.done && !out.some((g) => g.token === k))
      .map(([k]) => k);
    // the view's message stays where the view says it is
    const order = [
      ...here.filter((k) => !(k === own && view.message?.queue === q.queue)),
      ...here.filter((k) => k === own && view.message?.queue === q.queue),
    ];
    for (const k of order.slice(0, Math.max(0, here.length - counted)))
      out.push({ token: k, label: tokens[k]!.label, queue: q.queue, counted, went: whereTo(q.queue, view, routes) });
  }
  for (const g of out) sentOn(g, tokens, out, view, routes);
  atExchanges(tokens, out, view, routes);
  return out;
}

/**
 * a token the events left at an exchange (a dead-letter route that ends at one): an exchange holds no
 * message, so at a pause it is drawn in the first queue along the broker's bindings and the queues'
 * dead-letter routes whose reading counts more than the tokens drawn there (retry-ladder's exhausted
 * letter: back to work, then dead-lettered into the DLQ), else only said
 */
function atExchanges(tokens: Record<string, TokenAt>, out: Gone[], view: CheckpointView, routes: Routes) {
  const bindings = view.broker?.bindings;
  if (!bindings) return; // the broker did not answer: nothing to go by
  const next = (node: string): string[] =>
    node.startsWith('x:')
      ? [...new Set(bindings.filter((b) => b.exchange === node.slice(2)).map((b) => `q:${b.queue}`))]
      : [routes.deadLetter.get(node) ?? []].flat();
  for (const [k, t] of Object.entries(tokens)) {
    if (t.done || !t.at.startsWith('x:') || out.some((g) => g.token === k)) continue;
    const x = t.at.slice(2);
    const g: Gone = { token: k, label: t.label, queue: x, counted: 0, exchange: true, went: '' };
    // breadth first from the exchange, each node once
    const seen = new Set([t.at]);
    for (let layer = next(t.at); layer.length && !g.to;) {
      for (const node of layer) seen.add(node);
      const room = layer.find((n) => n.startsWith('q:') && roomIn(n, tokens, out, view) !== null);
      if (room) g.to = room;
      layer = layer.flatMap(next).filter((n) => !seen.has(n));
    }
    const bound = next(t.at).map((n) => tail(n.slice(2)));
    g.went = g.to
      ? `routed on to ${tail(g.to.slice(2))} (${roomIn(g.to, tokens, out, view)} there by this reading)`
      : bound.length
        ? `routed on by this reading (${tail(x)} → ${bound.join(', ')})`
        : `sent to ${tail(x)}, which the broker binds to no queue now: dropped`;
    out.push(g);
  }
}

/** the messages the reading counts in queue node `to` when that is more than the tokens drawn there, else null */
function roomIn(to: string, tokens: Record<string, TokenAt>, out: readonly Gone[], view: CheckpointView) {
  const next = view.queues.find((q) => `q:${q.queue}` === to);
  if (!next || next.ready === null || next.unacked === null || next.held === null) return null;
  const drawn =
    Object.entries(tokens).filter(([k, t]) => t.at === to && !t.done && !out.some((o) => o.token === k)).length +
    out.filter((o) => o.to === to).length;
  const counted = next.ready + next.unacked + next.held;
  return counted > drawn ? counted : null;
}

/**
 * a letter a queue's TTL sent on along its dead-letter route to another of the lab's queues: drawn
 * there when that queue's reading counts more messages than the tokens drawn in it (retry's copy, back
 * in the work queue during the pause), else only said
 */
function sentOn(g: Gone, tokens: Record<string, TokenAt>, out: readonly Gone[], view: CheckpointView, routes: Routes) {
  const to = routes.deadLetter.get(`q:${g.queue}`);
  if (!routes.ttl.has(g.queue) || !to?.startsWith('q:')) return;
  const counted = roomIn(to, tokens, out, view);
  if (counted === null) return;
  g.to = to;
  g.went = `its TTL sent it on to ${tail(to.slice(2))} (${counted} there by this reading)`;
}

/** one gone token in words: `…vent: not in retry.drop by this reading (0 there; its events put it there) — dead-lettered …` */
export const goneLine = (g: Gone) => goneGroup([g]);

/** gone tokens of one queue and one way, in one line; a long list of labels cut to its first few */
function goneGroup(gs: readonly Gone[]): string {
  const g = gs[0]!;
  const labels = gs.map((x) => x.label);
  const named =
    labels.length > 4 ? `${labels.slice(0, 3).join(', ')} and ${labels.length - 3} more` : labels.join(', ');
  const many = gs.length > 1;
  if (g.exchange)
    return `${named}: at ${tail(g.queue)} by ${many ? 'their' : 'its'} events, but an exchange holds no message — ${g.went}`;
  const their = many ? 'their events put them there' : 'its events put it there';
  return `${named}: not in ${tail(g.queue)} by this reading (${g.counted} there; ${their}) — ${g.went}`;
}

/** the gone tokens in words, one line per queue and way they went */
export function goneLines(gone: readonly Gone[]): string[] {
  const groups = new Map<string, Gone[]>();
  for (const g of gone) {
    const key = `${g.queue}\n${g.went}`;
    groups.set(key, [...(groups.get(key) ?? []), g]);
  }
  return [...groups.values()].map(goneGroup);
}
