/**
 * A snapshot from a definitions export (`rabbitmqctl export_definitions FILE`, or GET
 * /api/definitions): queues, exchanges, bindings and policies, no live state. Each queue's policy in
 * effect is worked out as the broker does: the highest-priority policy of its vhost whose pattern
 * matches its name and whose apply-to fits its type.
 */
import fs from 'node:fs';
import { UsageError } from '../core/errors.js';
import type { AuditQueue, Snapshot } from './snapshot.js';
import { text } from '../core/text.js';

type Row = Record<string, unknown>;
const obj = (v: unknown): Row => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : {});
const list = (v: unknown): Row[] => (Array.isArray(v) ? v.map(obj) : []);

const NOT_EXPORT_HINT =
  'give a file written by `rabbitmqctl export_definitions FILE` (or the management UI’s Export definitions)';

export function readDefinitions(file: string, vhost?: string): Snapshot {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      NOT_EXPORT_HINT,
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `${file} is not valid JSON (${(err as Error).message.split('\n')[0]}): a truncated or damaged export?`,
      NOT_EXPORT_HINT,
    );
  }
  return fromDefinitions(doc, file, vhost);
}

export function fromDefinitions(doc: unknown, file: string, only?: string): Snapshot {
  const d = obj(doc);
  const version = d.rabbitmq_version ?? d.rabbit_version;
  const known = ['queues', 'exchanges', 'bindings', 'policies'].filter((k) => Array.isArray(d[k]));
  if (Array.isArray(doc) || typeof version !== 'string' || !known.length)
    throw new UsageError(
      `${file} is not a RabbitMQ definitions export (it has no rabbit_version and no queues, exchanges or bindings lists)`,
      NOT_EXPORT_HINT,
    );
  // a one-vhost export (GET /api/definitions/VHOST) has no vhost on its objects
  const fallback = only ?? '/';
  const vh = (r: Row) => (typeof r.vhost === 'string' ? r.vhost : fallback);
  const keep = (r: Row) => only === undefined || vh(r) === only;
  const policies = list(d.policies).filter(keep);
  const queues = list(d.queues)
    .filter(keep)
    .map((q) =>
      toQueue(
        q,
        vh(q),
        policies.filter((p) => vh(p) === vh(q)),
      ),
    );
  const vhosts =
    only !== undefined
      ? [only]
      : [
          ...new Set([
            ...list(d.vhosts).map((v) => String(v.name)),
            ...queues.map((q) => q.vhost),
            ...list(d.exchanges).map(vh),
          ]),
        ];
  return {
    source: { kind: 'definitions', file },
    broker: { product: text(d.product_name, 'RabbitMQ'), version },
    vhosts,
    queues,
    exchanges: list(d.exchanges)
      .filter(keep)
      .map((x) => ({
        vhost: vh(x),
        name: String(x.name),
        type: text(x.type, 'direct'),
        arguments: obj(x.arguments),
      })),
    bindings: list(d.bindings)
      .filter(keep)
      .map((b) => ({
        vhost: vh(b),
        source: text(b.source),
        destination: text(b.destination),
        destination_type: b.destination_type === 'exchange' ? 'exchange' : 'queue',
        routing_key: text(b.routing_key),
      })),
    consumers: null,
    channels: null,
    nodes: null,
  };
}

function toQueue(q: Row, vhost: string, policies: Row[]): AuditQueue {
  const args = obj(q.arguments);
  const type = text(q.type ?? args['x-queue-type'], 'classic');
  const name = String(q.name);
  return {
    vhost,
    name,
    type,
    durable: q.durable !== false,
    autoDelete: q.auto_delete === true,
    exclusive: false, // an export holds no exclusive queues
    arguments: args,
    policy: effectivePolicy(name, type, policies),
    stats: null,
    members: null,
  };
}

const APPLIES: Record<string, (type: string) => boolean> = {
  all: () => true,
  queues: () => true,
  quorum_queues: (t) => t === 'quorum',
  classic_queues: (t) => t === 'classic',
  streams: (t) => t === 'stream',
};

/** the definition of the policy the broker would apply: highest priority among the matching ones */
export function effectivePolicy(queue: string, type: string, policies: Row[]): Row | null {
  let best: Row | null = null;
  for (const p of policies) {
    const applies = APPLIES[text(p['apply-to'], 'all')];
    if (!applies?.(type)) continue;
    let re: RegExp;
    try {
      re = new RegExp(String(p.pattern));
    } catch {
      continue;
    }
    if (!re.test(queue)) continue;
    if (!best || Number(p.priority ?? 0) > Number(best.priority ?? 0)) best = p;
  }
  return best ? obj(best.definition) : null;
}
