/**
 * The bench's steps: the run's events in the time they happened (each its own timestamp, not the
 * order they reached the log), one step each, with the state at that moment: the queues' counts
 * from the samples taken up to then, where each message was last seen, the processes' states and
 * the business rows a checkpoint or snapshot reported, the queues' policies as the management API
 * last showed them, and the route along the graph's edges a message took to where it is now
 * (exchange → queue → dead-letter route …) when the graph has one. A child's [replay-gate] lines and the
 * `released` half of a checkpoint are folded into the checkpoint's step. Pure: the live feed and
 * the player use the same function.
 *
 * A token is one copy of a message: one publish. An event that names its publish (`publishId`, which
 * the publisher sets on the message and a consumer reads back from the delivery) is about that copy:
 * a message id published twice is two tokens (`2#1`, `2#2`), a redelivery of one copy stays one. An
 * event without it is about the message's copy seen last. A copy the consumer settles as a duplicate
 * (status …duplicate…/…skipped…) is done and drawn as skipped.
 */
import type { DepthSeries } from '../broker/depth-sampler.js';
import { eventTime, laneKey, markKind, type MarkKind, type TimelineEvent } from './html-layout.js';
import { deadLetterEdges, exchangeId, processId, queueId, sends, type GraphEdge } from './graph.js';
import { policyEdges, policyLines } from './policy.js';
import type { Topology } from '../broker/topology.js';
import { countsBasis, type BindingAt, type CheckpointView } from '../core/checkpoint-view.js';
import { goneLine, goneLines, notCounted } from './broker-wins.js';

interface StepCounts {
  /**
   * ready, unacked and held per queue from one answer of the broker per queue (the latest
   * management reading up to the step, or the checkpoint's own), and when (ms since the first step)
   */
  ready: (number | null)[] | null;
  readyAt: number | null;
  unacked: (number | null)[] | null;
  held: (number | null)[] | null;
  mgmtAt: number | null;
  /**
   * per queue, from the same management sample: the policy in effect as its node draws it
   * (policy-lines: name, then key value), [] for none, null where the API did not answer
   */
  policy: (string[] | null)[] | null;
  /** set when the counts are the checkpoint's own (taken at the pause): how they were taken */
  basis?: string;
  /**
   * the bindings from the lab's exchanges as the broker listed them with these counts
   * (`x:<exchange>>q:<queue>` each); null before the broker was asked: the graph draws the declared ones
   */
  bindings?: string[] | null;
  /**
   * per queue: its ready count was sampled before a message last entered or left it (by the steps up
   * to this one), so it may not count the tokens drawn there; null where there is no count
   */
  readyBefore?: (boolean | null)[];
}

interface Token {
  /** the node it was last seen at: q:<queue> or p:<process> */
  at: string;
  label: string;
  done: boolean;
  /** settled as a duplicate: acked without its effect (a consumer's dedupe) */
  skipped?: boolean;
}

export interface Step {
  t: number;
  /** ms since the first step */
  rel: number;
  lane: string;
  kind: MarkKind;
  title: string;
  /** the checkpoint's one-line description, when the lab declares one */
  description?: string;
  checkpoint?: string;
  /** a checkpoint's token while the run is paused on it (not released yet) */
  waiting?: string;
  messageId?: string;
  /** the step's token (tokens' key): the message id, or `id@publishId` for a copy that names its publish */
  token?: string;
  /**
   * the nodes the step's message passed through along the graph's edges to get where it is now
   * (first: where it was, last: the queue or exchange it reached), when the graph has that route
   */
  route?: string[];
  /** the event's own fields, without the boilerplate */
  fields: Record<string, string>;
  /** the step's message as its events so far described it (attempt, redelivered, xDeath …; the latest value of each) */
  message?: Record<string, string>;
  counts: StepCounts;
  tokens: Record<string, Token>;
  processes: Record<string, string>;
  business: { from: string; fields: Record<string, string> } | null;
  /**
   * at a pause: the messages its events put in a queue that the pause's reading does not count there,
   * in words (broker-wins.ts); they are not drawn there
   */
  gone?: string[];
}

interface StepInput {
  events: TimelineEvent[];
  depths?: DepthSeries | undefined;
  topology: Topology | null;
  descriptions: Record<string, string>;
  /** the processes' flows the graph draws (src/page/flows.ts): a message's route may take them */
  flows?: GraphEdge[];
}

const BOILERPLATE = new Set([
  'source',
  'process',
  'timestamp',
  'line',
  'lab',
  'level',
  'service',
  'product',
  'token',
  'traceId',
  'schemaVersion',
  'status',
]);
const IDS = ['messageId', 'eventId'] as const;

const idOf = (e: TimelineEvent) => IDS.map((k) => e[k]).find((v) => v !== undefined && v !== '' && v !== 'none');
/** the publish an event's message copy came from, when the event names it */
const copyOf = (e: TimelineEvent) => (e.publishId !== undefined && e.publishId !== '' ? e.publishId : undefined);
/** a consumer's settle of a copy it had already applied: acked, no effect */
const SKIPPED = /duplicate|skipped/;

function fieldsOf(e: TimelineEvent): Record<string, string> {
  return Object.fromEntries(Object.entries(e).filter(([k, v]) => !BOILERPLATE.has(k) && v !== undefined)) as Record<
    string,
    string
  >;
}

function titleOf(e: TimelineEvent, kind: MarkKind, label: string | undefined): string {
  const lane = laneKey(e);
  if (kind === 'crash') return `${e.process ?? lane} killed (exit ${e.exitCode}, ${e.signal ?? 'signal'})`;
  if (kind === 'exit') return `${e.process ?? lane} exited (code ${e.exitCode})`;
  if (kind === 'checkpoint')
    return `pause: ${e.checkpoint}${e.process ? ` in ${e.process}` : ''}${label ? ` · ${label}` : ''}`;
  const what = e.status ? e.status.replace(/_/g, ' ') : 'logged';
  return `${lane}: ${what}${label ? ` · ${label}` : ''}`;
}

export function buildSteps(input: StepInput): Step[] {
  const queues = input.topology?.queues.map((q) => q.name) ?? [];
  const known = new Set(queues);
  // the routes a run-time policy added count as the queue's own from its first sample on: the
  // management API shows a policy 2 s late, the broker applies it at once (depth-sampler.ts)
  const deadEdges = [
    ...deadLetterEdges(input.topology ?? { queues: [] }),
    ...policyEdges(input.depths, input.topology),
  ];
  const deadRoute = new Map(deadEdges.map((e) => [e.from, e.to]));
  const exchanges = new Set((input.topology?.exchanges ?? []).map((x) => x.name));
  const ttl = new Set(
    (input.topology?.queues ?? []).filter((q) => q.args?.['x-message-ttl'] !== undefined).map((q) => q.name),
  );
  const edges: GraphEdge[] = [
    ...(input.topology?.bindings ?? []).map((b) => ({
      from: exchangeId(b.exchange),
      to: queueId(b.queue),
      kind: 'binding' as const,
      label: '',
    })),
    ...deadEdges,
    ...(input.flows ?? []),
  ];
  const flowTo = new Set((input.flows ?? []).map((f) => `${f.from}>${f.to}`));
  /** the last queue or exchange each message was at (or received from) */
  const lastNode = new Map<string, string>();
  const released = new Set(
    input.events.filter((e) => e.source === 'checkpoint' && e.status === 'released').map((e) => e.token),
  );
  const releaseAt = new Map(
    input.events
      .filter((e) => e.source === 'checkpoint' && e.status === 'released')
      .map((e) => [e.token, eventTime(e)]),
  );
  const shown = input.events
    .map((e, i) => ({ e, i, t: eventTime(e) }))
    .filter(
      ({ e, t }) =>
        Number.isFinite(t) && e.source !== 'replay-gate' && !(e.source === 'checkpoint' && e.status === 'released'),
    )
    .sort((a, b) => a.t - b.t || a.i - b.i);
  const samples = [...(input.depths?.samples ?? [])]
    .map((s) => ({ ...s, t: Date.parse(s.timestamp) }))
    .sort((a, b) => a.t - b.t);
  const t0 = shown[0]?.t ?? 0;
  const labels = new Map<string, string>();
  for (const { e } of shown) {
    const id = idOf(e);
    if (id && !labels.has(id)) labels.set(id, e.aggregateId ?? e.orderId ?? (id.length > 12 ? `…${id.slice(-4)}` : id));
  }
  // order-1001, order-1002, order-poison → 1001, 1002, poison: a token's label is short
  const prefix = commonPrefix([...labels.values()]);
  if (prefix) for (const [k, v] of labels) labels.set(k, v.slice(prefix.length));
  // each message's copies (the publishes its events name), in the order they were first seen
  const copies = new Map<string, string[]>();
  for (const { e } of shown) {
    const id = idOf(e);
    const copy = copyOf(e);
    if (!id || !copy) continue;
    const seen = copies.get(id) ?? [];
    if (!seen.includes(copy)) copies.set(id, [...seen, copy]);
  }
  /** a copy's label: the message's, with its number when the message had more than one */
  const labelOf = (id: string, copy: string | undefined) => {
    const base = labels.get(id);
    const all = copies.get(id) ?? [];
    return base !== undefined && copy && all.length > 1 ? `${base}#${all.indexOf(copy) + 1}` : base;
  };
  const tokens: Record<string, Token> = {};
  /** per queue name: when a token last entered or left it */
  const changedAt = new Map<string, number>();
  const messages = new Map<string, Record<string, string>>();
  const lastQueue = new Map<string, string>();
  /** per message id: the key of its copy seen last */
  const current = new Map<string, string>();
  /**
   * the token an event is about: its copy's (the first copy takes over what the message's events said
   * before any named a publish), else the message's copy seen last
   */
  const tokenOf = (id: string, copy: string | undefined): string => {
    if (!copy) return current.get(id) ?? id;
    const key = `${id}@${copy}`;
    if (!(key in tokens) && id in tokens && !current.has(id)) {
      for (const m of [lastNode, lastQueue, messages] as Map<string, unknown>[])
        if (m.has(id)) {
          m.set(key, m.get(id));
          m.delete(id);
        }
      tokens[key] = tokens[id]!;
      delete tokens[id];
    }
    current.set(id, key);
    return key;
  };
  const processes: Record<string, string> = {};
  let business: Step['business'] = null;
  // where an event sends its message (destination, target); a receipt's queue may also be named `queue`
  // (elsewhere `queue` is often an x-death entry's queue: not a place the message goes)
  const queueIn = (e: TimelineEvent, receipt: boolean) =>
    (receipt ? [e.destination, e.queue] : [e.destination, e.target]).find((v) => v !== undefined && known.has(v));

  return shown.map(({ e, t }) => {
    const kind = markKind(e);
    const lane = laneKey(e);
    const mid = idOf(e);
    const copy = copyOf(e);
    // the token's key from here on; `mid` stays the message's id
    const id = mid ? tokenOf(mid, copy) : undefined;
    const label = mid ? labelOf(mid, copy ?? (id?.includes('@') ? id.slice(mid.length + 1) : undefined)) : undefined;
    const before = new Map(Object.entries(tokens).map(([k, tok]) => [k, tok.at]));
    const proc = e.process ?? (e.source === 'checkpoint' ? undefined : lane);
    if (proc && !(proc in processes)) processes[proc] = e.process ? 'running' : 'in the lab';
    if (kind === 'crash' || kind === 'exit') {
      processes[e.process ?? lane] = kind === 'crash' ? `killed (exit ${e.exitCode})` : `exited (${e.exitCode})`;
      // what a killed consumer held unacked goes back to its queue (the broker requeues it)
      if (kind === 'crash')
        for (const [tid, tok] of Object.entries(tokens)) {
          const back = lastQueue.get(tid);
          if (tok.at === processId(e.process ?? lane) && !tok.done && back) tokens[tid] = { ...tok, at: queueId(back) };
        }
    }
    const q = queueIn(e, kind === 'receive');
    let route: string[] | undefined;
    // a pause names the message it holds but moves nothing (a gate's event reaches the log a moment late)
    if (id && label && kind === 'checkpoint') tokens[id] ??= { at: processId(e.process ?? lane), label, done: false };
    else if (id && label) {
      const prev = tokens[id];
      let at = processId(e.process ?? lane);
      const from = lastQueue.get(id);
      if (kind === 'receive' && q) lastQueue.set(id, q);
      else if ((kind === 'publish' || kind === 'confirm') && q) at = queueId(q);
      else if (kind === 'retry' || kind === 'dead') {
        // where it goes: a queue its status names (poison_to_dlq), a queue other than the one it came
        // from (retry_confirmed destination=…delay), else the dead-letter route of the queue it came from
        const named = statusQueue(e.status, queues) ?? (q && q !== from ? q : undefined);
        // the queue's dead-letter route only once the event says it was rejected (a `retry` logged before
        // the reject is an intent: the message is still the consumer's)
        const rejected = /reject|dead|expired/.test(e.status ?? '');
        const to = named ? queueId(named) : from && rejected ? deadRoute.get(queueId(from)) : undefined;
        if (to) at = to;
      }
      // a sender's own bookkeeping once the broker has it (outbox's relay: marked_sent, a crash injected
      // after the confirm) leaves the message in its queue: it does not come back to the sender
      // (marked_sent reads as a publish: only one that names a queue moves it)
      const kept = sends(lane) && !!prev?.at.startsWith('q:') && !((kind === 'publish' || kind === 'confirm') && q);
      if (kept && prev) at = prev.at;
      if (at.startsWith('q:')) lastQueue.set(id, at.slice(2));
      // the way it went: from the queue a dead letter left (else where it was last) to the queue or
      // exchange it reached (a receipt: the queue it was received from), along the graph's edges
      const start =
        (kind === 'retry' || kind === 'dead') && from && at !== processId(e.process ?? lane)
          ? queueId(from)
          : lastNode.get(id);
      // a delivery the graph draws as a flow goes on to its process; a publish starts from it
      const delivered = kind === 'receive' && q && flowTo.has(`${queueId(q)}>${at}`);
      const end = at.startsWith('p:') ? (delivered ? at : kind === 'receive' && q ? queueId(q) : undefined) : at;
      const from0 =
        start &&
        start.startsWith('q:') &&
        flowTo.has(`${processId(e.process ?? lane)}>${end}`) &&
        prev?.at === processId(e.process ?? lane)
          ? prev.at
          : start;
      if (from0 && end && from0 !== end) route = routeAlong(edges, from0, end);
      if (end) lastNode.set(id, end);
      const skipped = SKIPPED.test(e.status ?? '') || (prev?.skipped ?? false);
      // a copy that reaches a queue is the broker's again: not done, whatever its sender did before
      const live = at.startsWith('q:') && at !== prev?.at;
      const done = (kind === 'settle' && !kept) || skipped || (!live && (prev?.done ?? false));
      tokens[id] = { at, label, done };
      if (skipped) tokens[id].skipped = true;
    } else if (!id && q && sends(lane) && kind !== 'receive') {
      // a sender's summary (destination=… confirmed=N): what it holds is now in that queue
      for (const [tid, tok] of Object.entries(tokens))
        if (tok.at === processId(lane)) {
          tokens[tid] = { ...tok, at: queueId(q) };
          lastQueue.set(tid, q);
        }
    }
    for (const [k, tok] of Object.entries(tokens)) {
      const was = before.get(k);
      if (was === tok.at) continue;
      for (const node of [was, tok.at]) if (node?.startsWith('q:')) changedAt.set(node.slice(2), t);
    }
    const fields = fieldsOf(e);
    if (id && kind !== 'checkpoint') messages.set(id, { ...messages.get(id), ...fields });
    if ((kind === 'checkpoint' && !e.process) || e.status === 'snapshot') {
      // a checkpoint's `view` (its description, counts and facts) is what the step already shows
      const rows = Object.fromEntries(
        Object.entries(fields).filter(([k]) => !['checkpoint', 'messageId', 'exitCode', 'note', 'view'].includes(k)),
      );
      if (Object.keys(rows).length)
        business = { from: kind === 'checkpoint' ? `checkpoint ${e.checkpoint}` : `${lane} snapshot`, fields: rows };
    }
    // a pause shows the counts taken while it lasted (the runner samples at the pause)
    const until = kind === 'checkpoint' ? (releaseAt.get(e.token) ?? Infinity) : t;
    const upTo = samples.filter((s) => s.t <= until);
    // every count of a panel from one answer: the latest management reading (ready, unacked and held
    // of each queue from its own counters); a recording without one (older runs) has the declare's ready
    const mgmt = upTo.filter((s) => s.unacked !== undefined || s.messages !== undefined).at(-1);
    const ready = mgmt?.readyNow ? { ready: mgmt.readyNow, t: mgmt.t } : upTo.at(-1);
    const step: Step = {
      t,
      rel: t - t0,
      lane,
      kind,
      title: titleOf(e, kind, label),
      fields,
      counts: {
        ready: ready?.ready ?? null,
        readyAt: ready ? ready.t - t0 : null,
        unacked: mgmt?.unacked ?? null,
        held: mgmt?.held ?? null,
        mgmtAt: mgmt ? mgmt.t - t0 : null,
        policy: mgmt?.policy?.map(policyLines) ?? null,
        bindings: mgmt?.bindings === undefined ? null : bindingIds(mgmt.bindings),
      },
      tokens: structuredClone(tokens),
      processes: { ...processes },
      business,
    };
    if (route) step.route = route;
    step.counts.readyBefore = staleness(queues, step.counts.ready, ready?.t, changedAt);
    if (id && mid) {
      step.messageId = mid;
      step.token = id;
      step.message = { ...(messages.get(id) ?? {}) };
    }
    // a checkpoint's own view (the runner takes it at the pause): its description, counts and message win
    const view = (e as unknown as { view?: CheckpointView }).view;
    if (kind === 'checkpoint' && view) {
      applyView(step, view, queues, t0, tokens[id ?? ''] ?? null);
      step.counts.readyBefore = staleness(queues, step.counts.ready, Date.parse(view.at), changedAt);
      // the broker wins: a token its reading does not count where the events put it is taken off, from here on
      const gone = notCounted(step.tokens, view, step.token, { deadLetter: deadRoute, exchanges, ttl });
      for (const g of gone) {
        const was = step.tokens[g.token]!;
        delete step.tokens[g.token];
        delete tokens[g.token];
        if (g.to) {
          step.tokens[g.token] = { ...was, at: g.to };
          tokens[g.token] = { ...was, at: g.to };
        }
        if (g.token === step.token) step.message = { ...step.message, at: goneLine(g) };
      }
      if (gone.length) step.gone = goneLines(gone);
    }
    if (kind === 'checkpoint' && e.checkpoint) {
      step.checkpoint = e.checkpoint;
      const d = input.descriptions[e.checkpoint];
      if (d) step.description = d;
      if (e.token && !released.has(e.token)) step.waiting = e.token;
    }
    return step;
  });
}

/** what the checkpoint view says, over what the events say: counts at the pause, the delivery as the consumer saw it */
function applyView(step: Step, view: CheckpointView, queues: string[], t0: number, token: Token | null): void {
  if (view.description) step.description = view.description;
  const of = (q: string) => view.queues.find((x) => x.queue === q);
  const at = Date.parse(view.broker?.at ?? view.at) - t0;
  const b = view.broker;
  step.counts = {
    ready: queues.map((q) => of(q)?.ready ?? null),
    readyAt: at,
    unacked: queues.map((q) => of(q)?.unacked ?? null),
    held: queues.map((q) => of(q)?.held ?? null),
    mgmtAt: at,
    // the broker's own policies and bindings of the same reading (a view without them: the step's sample's)
    policy: b ? b.policies.map(policyLines) : step.counts.policy,
    bindings: b && b.bindings !== null ? bindingIds(b.bindings) : (step.counts.bindings ?? null),
    basis: countsBasis(b?.reading),
  };
  const m = view.message;
  if (!m) return;
  const said: Record<string, string> = {};
  if (m.attempt !== undefined) said.attempt = String(m.attempt);
  if (m.redelivered !== undefined) said.redelivered = String(m.redelivered);
  if (m.deliveryCount !== undefined) said.deliveryCount = String(m.deliveryCount);
  if (m.deaths)
    said.xDeath = m.deaths.length ? m.deaths.map((d) => `${d.queue}:${d.reason}:${d.count}`).join(',') : 'none';
  if (m.queue) said.at = m.queue;
  step.message = { ...(step.message ?? {}), ...said };
  const key = step.token;
  if (!token || !key) return;
  // where the view says it is: a queue it names, else the process that holds the delivery at its gate
  if (m.queue && queues.includes(m.queue)) step.tokens[key] = { ...token, at: queueId(m.queue) };
  // (not a message the view saw leave a queue: it is on its way, broker-wins.ts says where)
  else if (view.process && !m.leftQueue) step.tokens[key] = { ...token, at: processId(view.process) };
}

/** the bindings as the graph's edges name their ends (`x:<exchange>>q:<queue>`) */
const bindingIds = (bindings: readonly BindingAt[] | null): string[] | null =>
  bindings === null ? null : [...new Set(bindings.map((b) => `${exchangeId(b.exchange)}>${queueId(b.queue)}`))];

/** per queue: was its ready count sampled (at `at`) before a token last entered or left it */
function staleness(
  queues: string[],
  ready: (number | null)[] | null,
  at: number | undefined,
  changedAt: Map<string, number>,
): (boolean | null)[] {
  return queues.map((q, i) => {
    if (ready?.[i] === null || ready?.[i] === undefined || at === undefined) return null;
    const changed = changedAt.get(q);
    return changed !== undefined && at < changed;
  });
}

/** the shortest way from one node to another along the edges (at most 4 of them), or undefined */
function routeAlong(edges: readonly GraphEdge[], from: string, to: string): string[] | undefined {
  let paths: string[][] = [[from]];
  for (let hop = 0; hop < 4 && paths.length; hop++) {
    const next: string[][] = [];
    for (const path of paths)
      for (const e of edges)
        if (e.from === path.at(-1) && !path.includes(e.to)) {
          if (e.to === to) return [...path, to];
          next.push([...path, e.to]);
        }
    paths = next;
  }
  return undefined;
}

/** the queue a status sends its message to: poison_to_dlq → the queue whose name ends in .dlq */
export function statusQueue(status: string | undefined, queues: string[]): string | undefined {
  const word = /_to_([a-z0-9]+)$/.exec(status ?? '')?.[1];
  if (!word) return undefined;
  return queues.find((q) => q.split('.').at(-1) === word);
}

/** the labels' common prefix up to a separator ('order-'), '' when nothing is shared or a label would be empty */
export function commonPrefix(labels: string[]): string {
  if (labels.length < 2) return '';
  let p = labels[0] ?? '';
  for (const l of labels) while (!l.startsWith(p)) p = p.slice(0, -1);
  const cut = Math.max(p.lastIndexOf('-'), p.lastIndexOf('.'), p.lastIndexOf('_'), p.lastIndexOf(':'));
  p = cut >= 0 ? p.slice(0, cut + 1) : '';
  return labels.some((l) => l.length === p.length) ? '' : p;
}
