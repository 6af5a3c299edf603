/**
 * The bench's steps: the run's events in the time they happened (each its own timestamp, not the
 * order they reached the log), one step each, with the state at that moment: the queues' counts
 * from the samples taken up to then, where each message was last seen, the processes' states and
 * the business rows a checkpoint or snapshot reported. A child's [replay-gate] lines and the
 * `released` half of a checkpoint are folded into the checkpoint's step. Pure: the live feed and
 * the player use the same function.
 */
import type { DepthSeries } from '../broker/depth-sampler.js';
import { eventTime, formatMs, laneKey, markKind, type MarkKind, type TimelineEvent } from '../report/html-layout.js';
import { deadLetterEdges, processId, queueId, sends } from './graph.js';
import type { Topology } from '../broker/topology.js';
import { COUNTS_BASIS, type CheckpointView } from '../checkpoint-view.js';

export interface StepCounts {
  /** ready per queue (queue.declare passive) and when it was sampled (ms since the first step) */
  ready: (number | null)[] | null;
  readyAt: number | null;
  /** unacked and held per queue (management API), and when */
  unacked: (number | null)[] | null;
  held: (number | null)[] | null;
  mgmtAt: number | null;
  /** set when the counts are the checkpoint's own (taken at the pause): how they were taken */
  basis?: string;
}

export interface Token {
  /** the node it was last seen at: q:<queue> or p:<process> */
  at: string;
  label: string;
  done: boolean;
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
  /** the event's own fields, without the boilerplate */
  fields: Record<string, string>;
  /** the step's message as its events so far described it (attempt, redelivered, xDeath …; the latest value of each) */
  message?: Record<string, string>;
  counts: StepCounts;
  tokens: Record<string, Token>;
  processes: Record<string, string>;
  business: { from: string; fields: Record<string, string> } | null;
}

export interface StepInput {
  events: TimelineEvent[];
  depths?: DepthSeries | undefined;
  topology: Topology | null;
  descriptions: Record<string, string>;
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
  const deadRoute = new Map(deadLetterEdges(input.topology ?? { queues: [] }).map((e) => [e.from, e.to]));
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
  const tokens: Record<string, Token> = {};
  const messages = new Map<string, Record<string, string>>();
  const lastQueue = new Map<string, string>();
  const processes: Record<string, string> = {};
  let business: Step['business'] = null;
  // where an event sends its message (destination, target); a receipt's queue may also be named `queue`
  // (elsewhere `queue` is often an x-death entry's queue: not a place the message goes)
  const queueIn = (e: TimelineEvent, receipt: boolean) =>
    (receipt ? [e.destination, e.queue] : [e.destination, e.target]).find((v) => v !== undefined && known.has(v));

  return shown.map(({ e, t }) => {
    const kind = markKind(e);
    const lane = laneKey(e);
    const id = idOf(e);
    const label = id ? labels.get(id) : undefined;
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
      if (at.startsWith('q:')) lastQueue.set(id, at.slice(2));
      tokens[id] = { at, label, done: kind === 'settle' || (prev?.done ?? false) };
    } else if (!id && q && sends(lane) && kind !== 'receive') {
      // a sender's summary (destination=… confirmed=N): what it holds is now in that queue
      for (const [tid, tok] of Object.entries(tokens))
        if (tok.at === processId(lane)) {
          tokens[tid] = { ...tok, at: queueId(q) };
          lastQueue.set(tid, q);
        }
    }
    const fields = fieldsOf(e);
    if (id && kind !== 'checkpoint') messages.set(id, { ...messages.get(id), ...fields });
    if ((kind === 'checkpoint' && !e.process) || e.status === 'snapshot') {
      const rows = Object.fromEntries(
        Object.entries(fields).filter(([k]) => !['checkpoint', 'messageId', 'exitCode', 'note'].includes(k)),
      );
      if (Object.keys(rows).length)
        business = { from: kind === 'checkpoint' ? `checkpoint ${e.checkpoint}` : `${lane} snapshot`, fields: rows };
    }
    // a pause shows the counts taken while it lasted (the runner samples at the pause)
    const until = kind === 'checkpoint' ? (releaseAt.get(e.token) ?? Infinity) : t;
    const upTo = samples.filter((s) => s.t <= until);
    const ready = upTo.at(-1);
    const mgmt = upTo.filter((s) => s.unacked !== undefined || s.messages !== undefined).at(-1);
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
      },
      tokens: structuredClone(tokens),
      processes: { ...processes },
      business,
    };
    if (id) {
      step.messageId = id;
      step.message = { ...(messages.get(id) ?? {}) };
    }
    // a checkpoint's own view (the runner takes it at the pause): its description, counts and message win
    const view = (e as unknown as { view?: CheckpointView }).view;
    if (kind === 'checkpoint' && view) applyView(step, view, queues, t0, tokens[id ?? ''] ?? null);
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
  const at = Date.parse(view.at) - t0;
  step.counts = {
    ready: queues.map((q) => of(q)?.ready ?? null),
    readyAt: at,
    unacked: queues.map((q) => of(q)?.unacked ?? null),
    held: queues.map((q) => of(q)?.held ?? null),
    mgmtAt: at,
    basis: COUNTS_BASIS,
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
  if (!token || !step.messageId) return;
  // where the view says it is: a queue it names, else the process that holds the delivery at its gate
  if (m.queue && queues.includes(m.queue)) step.tokens[step.messageId] = { ...token, at: queueId(m.queue) };
  else if (view.process) step.tokens[step.messageId] = { ...token, at: processId(view.process) };
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

/** "+1.02 s" for a step's time */
export const stepTime = (s: Pick<Step, 'rel'>) => `+${formatMs(s.rel)}`;
