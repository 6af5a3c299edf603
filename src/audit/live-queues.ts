/**
 * The queues of a live broker, with statistics only where a check can use them.
 *
 * Statistics are what a queue listing costs: for each queue the broker works out rates from its
 * sample windows (`list_queue_stats` in rabbit_mgmt_db.erl, exometer_slide; measured on 4.3.6 at
 * about 0.85 ms of broker CPU per queue, idle or not), one queue after another in one process
 * (rabbit_mgmt_db_cache). Without them (`disable_stats=true`) RabbitMQ from 4.2.5 still lists each queue's
 * arguments, effective policy and members (`format_policy_fields`, rabbit_classic_queue.erl and
 * rabbit_quorum_queue.erl, v4.3.5), and `enable_queue_totals=true` adds its message counts.
 *
 * So from 4.2.5 (where `format_policy_fields` first appears: commit 4a5178b2c4, #15182, first tag
 * v4.2.5; absent in v4.2.4): both listings, then statistics (one request a queue) for the queues that hold messages,
 * have a consumer, or are quorum queues under the default delivery limit. Every statistics check
 * needs one of those: a delay queue, a growing DLQ, unacked messages and a requeue storm each have
 * messages in the queue (a requeued message is ready or unacked), a stuck consumer is a consumer.
 * When they are more than a third of the queues, or the broker lists no policy without statistics
 * (before 4.2.5; on 3.10.8 `basic/1` in rabbit_mgmt_wm_queues.erl names the policy, not its
 * definition), or the queues are too many for one request, the listing with statistics instead.
 */
import type { Reader } from './http.js';
import { listing, unpaged, type Row } from './listing.js';
import { underDefaultLimit, type AuditQueue } from './snapshot.js';
import { atLeast, type Version } from './target.js';
import { text } from '../core/text.js';

/**
 * With `columns`, RabbitMQ 4.x answers from its detailed statistics (rabbit_mgmt_wm_queues.erl,
 * v4.3.5): the default listing has no message_stats, which the rate checks read.
 */
const STATS_COLUMNS =
  'name,vhost,type,durable,auto_delete,exclusive,arguments,policy,operator_policy,effective_policy_definition,consumers,messages,messages_ready,messages_unacknowledged,message_stats,members';
const PLAIN_COLUMNS =
  'name,vhost,type,durable,auto_delete,exclusive,arguments,policy,operator_policy,effective_policy_definition,members';
/** past this share of the queues, one request each costs the broker more than the listing with statistics */
const ONE_BY_ONE_SHARE = 1 / 3;

interface QueueRead {
  /** `/api/queues` or `/api/queues/VHOST` */
  path: string;
  /** the overview's object_totals.queues */
  total: unknown;
  /** the broker's version ([0, 0, 0] unknown) */
  version: Version;
  consumers: Promise<Row[]>;
  progress: (line: string) => void;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const obj = (v: unknown): Row => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : {});
const rate = (stats: Row, key: string) => num(obj(stats[`${key}_details`]).rate);
const key = (vhost: unknown, name: unknown) => `${text(vhost)}\u0000${text(name)}`;

export async function readQueues(http: Reader, o: QueueRead): Promise<AuditQueue[]> {
  const withStats = async () =>
    (await listing(http, { path: o.path, columns: STATS_COLUMNS, what: 'queues', total: o.total }, o.progress)).map(
      (r) => toQueue(r, r),
    );
  // without statistics in pages, each page would cost a pass over every queue: one request or none
  if (!unpaged(o.total) || !atLeast(o.version, '4.2.5')) return withStats();
  const totalsRead = http.get<Row[]>(
    `${o.path}?disable_stats=true&enable_queue_totals=true&columns=vhost,name,messages`,
  );
  totalsRead.catch(() => {}); // awaited below, or not needed
  const plain = await http.get<Row[]>(`${o.path}?disable_stats=true&columns=${PLAIN_COLUMNS}`);
  if (plain.some((r) => !('effective_policy_definition' in r))) return withStats();
  const [totals, consumers] = await Promise.all([totalsRead, o.consumers]);
  const held = new Map(totals.map((t) => [key(t.vhost, t.name), t.messages]));
  const consumed = new Set(consumers.map((c) => key(obj(c.queue).vhost, obj(c.queue).name)));
  const queues = plain.map((r) => toQueue(r, null));
  const need = queues.filter((q) => {
    const k = key(q.vhost, q.name);
    return held.get(k) !== 0 || consumed.has(k) || underDefaultLimit(q);
  });
  if (need.length > queues.length * ONE_BY_ONE_SHARE) return withStats();
  if (need.length)
    o.progress(
      `audit: statistics of ${need.length} of ${queues.length} queue(s): those that hold messages, have a consumer or are quorum queues under the default delivery limit`,
    );
  const stats = new Map<AuditQueue, Row | null>();
  await Promise.all(
    need.map(async (q) => {
      const at = `/api/queues/${encodeURIComponent(q.vhost)}/${encodeURIComponent(q.name)}?columns=${STATS_COLUMNS}`;
      stats.set(q, await http.find<Row>(at));
    }),
  );
  return queues.flatMap((q) => {
    if (!stats.has(q)) return [q];
    const s = stats.get(q);
    return s ? [{ ...q, stats: statsOf(s) }] : []; // null: deleted since it was listed
  });
}

/**
 * a queue from a listing row; its statistics from `s` (a row with statistics), or none to read: a
 * queue with no message and no consumer, whose counts are all 0
 */
function toQueue(q: Row, s: Row | null): AuditQueue {
  const args = obj(q.arguments);
  const policy = q.effective_policy_definition;
  return {
    vhost: String(q.vhost),
    name: String(q.name),
    type: text(q.type ?? args['x-queue-type'], 'classic'),
    durable: q.durable !== false,
    autoDelete: q.auto_delete === true,
    exclusive: q.exclusive === true,
    arguments: args,
    policy: policy && typeof policy === 'object' && !Array.isArray(policy) ? obj(policy) : null,
    policyName: typeof q.policy === 'string' && q.policy ? q.policy : null,
    operatorPolicyName: typeof q.operator_policy === 'string' && q.operator_policy ? q.operator_policy : null,
    stats: s ? statsOf(s) : statsOf({}),
    members: Array.isArray(q.members) ? q.members.map(String) : null,
  };
}

function statsOf(q: Row): NonNullable<AuditQueue['stats']> {
  const ms = obj(q.message_stats);
  return {
    messages: num(q.messages),
    ready: num(q.messages_ready),
    unacked: num(q.messages_unacknowledged),
    consumers: num(q.consumers),
    redeliverRate: rate(ms, 'redeliver'),
    deliverRate: rate(ms, 'deliver_get'),
    ackRate: rate(ms, 'ack'),
    redelivered: num(ms.redeliver),
  };
}
