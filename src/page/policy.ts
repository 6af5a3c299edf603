/**
 * A queue's run-time policy on the bench. A lab may set a policy while it runs (hold does), which
 * the topology data, declared before the run, does not show: the depth sampler asks the management
 * API for it once a second (src/broker/depth-sampler.ts), and here it becomes what a queue's node
 * draws (the policy's name, then each key it applies with its value), the room the graph keeps for
 * that, and the dead-letter routes a policy adds.
 */
import type { DepthSeries, QueuePolicy } from '../broker/depth-sampler.js';
import type { Topology } from '../broker/topology.js';
import { text } from '../core/text.js';
import { exchangeId, queueId, type GraphEdge } from './graph.js';

/** a policy line is cut here (the queue column widens up to this, src/page/graph.ts) */
export const POLICY_LINE_CHARS = 34;

const ms = (v: unknown) => (Number(v) >= 1000 && Number(v) % 1000 === 0 ? `${Number(v) / 1000} s` : `${text(v)} ms`);
const tail = (name: string) => name.split('.').slice(-2).join('.');
const cut = (line: string) => (line.length <= POLICY_LINE_CHARS ? line : `${line.slice(0, POLICY_LINE_CHARS - 1)}…`);
/** a long name keeps its end (the part that differs), as the nodes' names do */
const named = (word: string, name: string) => {
  const room = POLICY_LINE_CHARS - word.length - 1;
  return `${word} ${name.length <= room ? name : `…${name.slice(name.length - room + 1)}`}`;
};

function valueOf(key: string, v: unknown): string {
  if (key === 'message-ttl' || key === 'expires') return ms(v);
  if (key === 'dead-letter-exchange') return v === '' ? '(default)' : tail(text(v));
  return text(v);
}

/**
 * What a queue's node says about its policy: `policy NAME` (and `operator NAME`), then one line per
 * key it applies (`message-ttl 5 s`, `dead-letter-exchange hold.dlx`); [] when none applies; null
 * when the management API did not answer (or was not asked yet).
 */
export function policyLines(p: QueuePolicy | null | undefined): string[] | null {
  if (!p) return null;
  if (p.name === null && p.operator === undefined) return [];
  return [
    ...(p.name !== null ? [named('policy', p.name)] : []),
    ...(p.operator !== undefined ? [named('operator policy', p.operator)] : []),
    ...Object.entries(p.definition).map(([k, v]) => cut(`${k} ${valueOf(k, v)}`)),
  ];
}

interface PolicyRoom {
  /** the most lines the queue's policy took in any sample */
  lines: number;
  /** the longest of them, in characters */
  chars: number;
}

/** per queue that had a policy in any sample: the room its node keeps for the policy's lines */
export function policyRoom(depths: DepthSeries | undefined): Record<string, PolicyRoom> {
  const room: Record<string, PolicyRoom> = {};
  for (const s of depths?.samples ?? [])
    (depths?.queues ?? []).forEach((q, i) => {
      const lines = policyLines(s.policy?.[i]);
      if (!lines?.length) return;
      const r = (room[q] ??= { lines: 0, chars: 0 });
      r.lines = Math.max(r.lines, lines.length);
      r.chars = Math.max(r.chars, ...lines.map((l) => l.length));
    });
  return room;
}

/**
 * The dead-letter routes the queues' policies added during the run (a dead-letter-exchange the
 * topology has, or the default exchange with a routing key naming one of its queues), each once,
 * unless the queue's own arguments already route there. `policyOf` says whose policy it is: the
 * page dims the route at a step whose sample shows the queue without it.
 */
export function policyEdges(depths: DepthSeries | undefined, t: Topology | null): GraphEdge[] {
  const queues = new Set(t?.queues.map((q) => q.name) ?? []);
  const exchanges = new Set(t?.exchanges?.map((x) => x.name) ?? []);
  const out: GraphEdge[] = [];
  for (const s of depths?.samples ?? [])
    (depths?.queues ?? []).forEach((q, i) => {
      const p = s.policy?.[i];
      const dlx = p?.definition['dead-letter-exchange'];
      if (!p || dlx === undefined) return;
      const key = p.definition['dead-letter-routing-key'];
      const to =
        dlx === ''
          ? typeof key === 'string' && queues.has(key)
            ? queueId(key)
            : null
          : exchanges.has(text(dlx))
            ? exchangeId(text(dlx))
            : null;
      const from = queueId(q);
      const own = t?.queues.find((x) => x.name === q)?.args?.['x-dead-letter-exchange'] !== undefined;
      if (!to || own || out.some((e) => e.from === from && e.to === to)) return;
      out.push({
        from,
        to,
        kind: 'dead-letter',
        label: `dead letter (policy ${p.name ?? p.operator ?? ''})${key !== undefined && dlx !== '' ? ` key ${text(key)}` : ''}`,
        policyOf: from,
      });
    });
  return out;
}
