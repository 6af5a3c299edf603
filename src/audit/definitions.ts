/**
 * A snapshot from a definitions file, read as RabbitMQ's import reads it (rabbit_definitions.erl,
 * v3.10.8 … v4.3.5): every list is optional, and so is `rabbit_version` (`maps:get(…, undefined)`);
 * a file of `rabbitmqctl export_definitions` or GET /api/definitions names every object's vhost, one
 * of GET /api/definitions/VHOST none (from 4.0.5 it says which in `original_vhost_name`); policies may also
 * come as parameters of component `policy` / `operator_policy`. A queue's type is its x-queue-type
 * argument, else its vhost's default queue type, else classic — the `type` field is not read.
 * Each queue's and exchange's policy in effect is then worked out as the broker does (policies.ts).
 */
import { UsageError } from '../core/errors.js';
import { text } from '../core/text.js';
import { NOT_EXPORT_HINT } from './read-file.js';
import type { AuditBinding, AuditExchange, AuditPolicy, AuditQueue, FileFacts, Snapshot } from './snapshot.js';
import type { Ticker } from './ticker.js';
import { invalidUsers } from './users.js';

type Row = Record<string, unknown>;
const isRow = (v: unknown): v is Row => Boolean(v) && typeof v === 'object' && !Array.isArray(v);
const obj = (v: unknown): Row => (isRow(v) ? v : {});

/** the lists an export may hold (rabbit_definitions `apply_defs`) */
const LISTS = [
  'users',
  'vhosts',
  'permissions',
  'topic_permissions',
  'parameters',
  'global_parameters',
  'policies',
  'queues',
  'exchanges',
  'bindings',
] as const;

/** the vhost of objects without one, when neither the file nor --vhost names it */
export const UNNAMED_VHOST = '(the file’s vhost)';

/** the exchanges every vhost has: an export never lists them */
export const DEFAULT_EXCHANGES = [
  '',
  'amq.direct',
  'amq.fanout',
  'amq.topic',
  'amq.headers',
  'amq.match',
  'amq.rabbitmq.trace',
];
const BUILT_IN_TYPES = ['direct', 'fanout', 'topic', 'headers'];

interface ReadOptions {
  file: string;
  /** --vhost */
  vhost?: string | undefined;
  tick: Ticker;
}

/** is this parsed JSON a definitions export at all (else: exit 2) */
export function checkExport(doc: unknown, file: string): Row {
  const what = Array.isArray(doc) ? 'a JSON array' : isRow(doc) ? null : `a JSON ${doc === null ? 'null' : typeof doc}`;
  if (what)
    throw new UsageError(`${file} is not a RabbitMQ definitions export (${what}, not an object)`, NOT_EXPORT_HINT);
  const d = doc as Row;
  const version = d.rabbitmq_version ?? d.rabbit_version;
  if (typeof version !== 'string' && !LISTS.some((k) => k in d))
    throw new UsageError(
      `${file} is not a RabbitMQ definitions export: an object with none of its lists (${LISTS.join(', ')}) and no rabbit_version`,
      NOT_EXPORT_HINT,
    );
  return d;
}

export async function fromDefinitions(doc: unknown, o: ReadOptions): Promise<Snapshot> {
  const d = checkExport(doc, o.file);
  const invalid: FileFacts['invalid'] = [];
  const lists: string[] = [];
  const list = (key: string): Row[] => {
    if (!(key in d)) return [];
    lists.push(key);
    const v = d[key];
    if (!Array.isArray(v)) {
      invalid.push({ what: key, name: `(the ${key} list)`, vhost: '', reason: `it is ${typeof v}, not a list` });
      return [];
    }
    return (v as unknown[]).filter((e, i): e is Row => {
      if (isRow(e)) return true;
      invalid.push({ what: key, name: `(entry ${i + 1})`, vhost: '', reason: 'not an object' });
      return false;
    });
  };
  const named = typeof d.original_vhost_name === 'string' ? d.original_vhost_name : null;
  const rows = { queues: list('queues'), exchanges: list('exchanges'), bindings: list('bindings') };
  const policyRows: { row: Row; operator: boolean }[] = [
    ...list('policies').map((p) => ({ row: p, operator: false })),
    ...list('parameters')
      .filter((p) => p.component === 'policy' || p.component === 'operator_policy')
      .map((p) => ({
        row: { ...obj(p.value), name: p.name, vhost: p.vhost },
        operator: p.component === 'operator_policy',
      })),
  ];
  const vhostRows = list('vhosts');
  invalid.push(...invalidUsers(list('users')));
  for (const k of LISTS) if (!lists.includes(k) && k in d) list(k);

  const objects = [...rows.queues, ...rows.exchanges, ...rows.bindings];
  const vhostless = objects.filter((r) => typeof r.vhost !== 'string').length;
  const shape: FileFacts['shape'] =
    objects.length === 0 ? 'empty' : vhostless === 0 ? 'cluster' : vhostless === objects.length ? 'vhost' : 'mixed';
  // a 3.x one-vhost export strips the vhost of queues, exchanges and bindings, not of policies
  const named3x = [...new Set(policyRows.map((p) => p.row.vhost).filter((v) => typeof v === 'string'))];
  const guess = shape === 'vhost' && named3x.length === 1 ? (named3x[0] as string) : UNNAMED_VHOST;
  const fileVhost = named ?? (vhostless ? (o.vhost ?? guess) : null);
  const vh = (r: Row) => (typeof r.vhost === 'string' ? r.vhost : (fileVhost ?? UNNAMED_VHOST));

  const listed = vhostRows.map((v) => text(v.name)).filter(Boolean);
  const present = new Set([...listed, ...objects.map(vh), ...(named ? [named] : [])]);
  if (o.vhost !== undefined && !present.has(o.vhost) && shape !== 'vhost')
    throw new UsageError(
      `no vhost ${o.vhost} in ${o.file}`,
      present.size ? `it holds: ${[...present].sort().join(', ')}` : 'it names no vhost: leave out --vhost',
    );
  const keep = (r: Row) => o.vhost === undefined || vh(r) === o.vhost;
  const defaultTypes = new Map(
    vhostRows.map((v) => [text(v.name), text(v.default_queue_type ?? obj(v.metadata).default_queue_type, 'classic')]),
  );

  const policies: AuditPolicy[] = [];
  for (const { row: p, operator } of policyRows) {
    if (!keep(p)) continue;
    const name = typeof p.name === 'string' ? p.name : null;
    const reason =
      name === null
        ? 'it has no name'
        : typeof p.pattern !== 'string'
          ? 'it has no pattern'
          : !isRow(p.definition)
            ? 'its definition is not an object'
            : p.priority !== undefined && typeof p.priority !== 'number'
              ? 'its priority is not a number'
              : null;
    if (reason) {
      invalid.push({ what: operator ? 'operator policy' : 'policy', name: name ?? '(unnamed)', vhost: vh(p), reason });
      continue;
    }
    policies.push({
      vhost: vh(p),
      name: name!,
      pattern: p.pattern as string,
      applyTo: text(p['apply-to'], 'all'),
      priority: typeof p.priority === 'number' ? p.priority : 0,
      definition: obj(p.definition),
      operator,
    });
  }

  const typeIgnored: FileFacts['typeIgnored'] = [];
  const queues: AuditQueue[] = [];
  for (const q of rows.queues) {
    const turn = o.tick();
    if (turn) await turn;
    if (!keep(q)) continue;
    const vhost = vh(q);
    if (typeof q.name !== 'string') {
      invalid.push({ what: 'queue', name: '(unnamed)', vhost, reason: 'it has no name' });
      continue;
    }
    if (q.name.startsWith('amq.')) {
      invalid.push({ what: 'queue', name: q.name, vhost, reason: 'skipped: a name beginning with amq. is reserved' });
      continue;
    }
    const args = obj(q.arguments);
    const type = text(args['x-queue-type'] ?? defaultTypes.get(vhost), 'classic');
    if (typeof q.type === 'string' && q.type !== type)
      typeIgnored.push({ vhost, name: q.name, type: q.type, becomes: type });
    queues.push({
      vhost,
      name: q.name,
      type,
      durable: q.durable !== false,
      autoDelete: q.auto_delete === true,
      exclusive: q.exclusive === true,
      arguments: args,
      // worked out with the other policies' outcomes (policies.ts applyPolicies)
      policy: null,
      policyName: null,
      operatorPolicyName: null,
      stats: null,
      members: null,
    });
  }

  const exchanges: AuditExchange[] = [];
  for (const x of rows.exchanges) {
    if (!keep(x)) continue;
    const vhost = vh(x);
    const name = typeof x.name === 'string' ? x.name : null;
    const type = text(x.type);
    const reason =
      name === null
        ? 'it has no name'
        : DEFAULT_EXCHANGES.includes(name)
          ? null
          : name.startsWith('amq.')
            ? 'skipped: a name beginning with amq. is reserved'
            : !type
              ? 'it has no type'
              : !BUILT_IN_TYPES.includes(type) && !type.startsWith('x-')
                ? `its type '${type}' is not an exchange type`
                : null;
    if (reason) invalid.push({ what: 'exchange', name: name ?? '(unnamed)', vhost, reason });
    if (reason || name === null || DEFAULT_EXCHANGES.includes(name)) continue;
    exchanges.push({ vhost, name, type, arguments: obj(x.arguments), policyName: null });
  }

  const bindings: AuditBinding[] = [];
  for (const b of rows.bindings) {
    if (!keep(b)) continue;
    const vhost = vh(b);
    const dt = b.destination_type;
    const reason =
      typeof b.source !== 'string' || typeof b.destination !== 'string'
        ? 'it has no source or no destination'
        : dt !== 'queue' && dt !== 'exchange'
          ? `its destination_type is ${text(dt, 'missing')}, not queue or exchange`
          : null;
    if (reason) {
      invalid.push({ what: 'binding', name: `${text(b.source)} → ${text(b.destination)}`, vhost, reason });
      continue;
    }
    bindings.push({
      vhost,
      source: b.source as string,
      destination: b.destination as string,
      destination_type: dt as 'queue' | 'exchange',
      routing_key: text(b.routing_key),
    });
  }

  const vhosts = o.vhost !== undefined ? [o.vhost] : [...present].sort();
  const version = d.rabbitmq_version ?? d.rabbit_version;
  return {
    source: { kind: 'definitions', file: o.file },
    broker: typeof version === 'string' ? { product: text(d.product_name, 'RabbitMQ'), version } : null,
    vhosts,
    queues,
    exchanges,
    bindings,
    policies,
    file: { shape, vhostName: fileVhost, vhostless, lists, invalid, typeIgnored },
    consumers: null,
    channels: null,
    nodes: null,
  };
}
