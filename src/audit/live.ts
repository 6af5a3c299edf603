/**
 * A broker's snapshot through its management API, GET only (a `monitoring` user is enough): listings
 * paged (page_size 500, only the columns the checks read), a few requests at a time, progress on stderr.
 */
import { EnvError } from '../errors.js';
import { maskUrl } from '../urls.js';
import { bounded, type Reader } from './http.js';
import type { AuditChannel, AuditConsumer, AuditQueue, Snapshot } from './snapshot.js';
import { text } from '../text.js';

const PAGE_SIZE = 500;
/** requests in flight at once: enough to hide the latency, few enough not to load a busy broker */
export const CONCURRENCY = 4;

/**
 * With `columns`, RabbitMQ 4.x answers from its detailed statistics (rabbit_mgmt_wm_queues.erl,
 * v4.3.5): the default listing has no message_stats, which the rate checks read.
 */
const QUEUE_COLUMNS =
  'name,vhost,type,durable,auto_delete,exclusive,arguments,effective_policy_definition,consumers,messages,messages_ready,messages_unacknowledged,message_stats,members';
const EXCHANGE_COLUMNS = 'name,vhost,type,arguments';
const CHANNEL_COLUMNS = 'name,vhost,user,confirm,global_prefetch_count,message_stats';

type Row = Record<string, unknown>;
interface Page {
  items: Row[];
  page_count: number;
  total_count: number;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const obj = (v: unknown): Row => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : {});
const rate = (stats: Row, key: string) => num(obj(stats[`${key}_details`]).rate);

export interface LiveOptions {
  url: string;
  vhost?: string | undefined;
  progress: (line: string) => void;
}

export async function readLive(http: Reader, o: LiveOptions): Promise<Snapshot> {
  const overview = obj(await http.get<unknown>('/api/overview?columns=rabbitmq_version,product_name,product_version'));
  if (typeof overview.rabbitmq_version !== 'string')
    throw new EnvError(
      `${maskUrl(o.url)} answered /api/overview without a rabbitmq_version: not a RabbitMQ management API`,
      'give --mgmt-url the management API base URL (e.g. http://host:15672)',
    );
  const scope = o.vhost === undefined ? '' : `/${encodeURIComponent(o.vhost)}`;
  const [visible, nodes] = await Promise.all([
    http.get<Row[]>('/api/vhosts?columns=name').then((l) => l.map((v) => String(v.name))),
    http
      .get<Row[]>('/api/nodes?columns=name,running')
      .then((l) => l.filter((n) => n.running !== false).map((n) => String(n.name))),
  ]);
  // GET /api/vhosts/NAME is for administrators only: the list says whether the vhost exists
  if (o.vhost !== undefined && !visible.includes(o.vhost))
    throw new EnvError(
      `management API at ${maskUrl(o.url)}: no vhost ${o.vhost} that the user can see`,
      `check --vhost; the user sees ${visible.length ? visible.join(', ') : 'no vhost'}`,
    );
  const vhosts = o.vhost === undefined ? visible : [o.vhost];

  const queues = await paged(http, `/api/queues${scope}`, QUEUE_COLUMNS, 'queues', o.progress);
  const exchanges = await paged(http, `/api/exchanges${scope}`, EXCHANGE_COLUMNS, 'exchanges', o.progress);
  const channelsPath = o.vhost === undefined ? '/api/channels' : `/api/vhosts${scope}/channels`;
  const [bindings, consumers, channels] = await Promise.all([
    http.get<Row[]>(`/api/bindings${scope}`),
    http.get<Row[]>(`/api/consumers${scope}`),
    paged(http, channelsPath, CHANNEL_COLUMNS, 'channels', o.progress),
  ]);
  const channelPrefetch = new Map(channels.map((c) => [String(c.name), num(c.global_prefetch_count)]));
  return {
    source: { kind: 'management', url: maskUrl(o.url) },
    broker: { product: text(overview.product_name, 'RabbitMQ'), version: overview.rabbitmq_version },
    vhosts,
    queues: queues.map(toQueue),
    exchanges: exchanges.map((x) => ({
      vhost: String(x.vhost),
      name: String(x.name),
      type: String(x.type),
      arguments: obj(x.arguments),
    })),
    bindings: bindings.map((b) => ({
      vhost: String(b.vhost),
      source: String(b.source),
      destination: String(b.destination),
      destination_type: b.destination_type === 'exchange' ? 'exchange' : 'queue',
      routing_key: String(b.routing_key),
    })),
    consumers: consumers.map((c) => toConsumer(c, channelPrefetch)),
    channels: channels.map(toChannel),
    nodes,
  };
}

/** every row of a paged listing: page 1 says how many pages, the rest come CONCURRENCY at a time */
async function paged(
  http: Reader,
  path: string,
  columns: string,
  what: string,
  progress: (line: string) => void,
): Promise<Row[]> {
  const at = (page: number) => `${path}?page=${page}&page_size=${PAGE_SIZE}${columns ? `&columns=${columns}` : ''}`;
  const first = await http.get<Page | Row[]>(at(1));
  if (Array.isArray(first)) return first; // a broker that ignores paging returns the whole list
  const pages = num(first.page_count);
  const rows = [...(first.items ?? [])];
  if (pages > 1) {
    let done = rows.length;
    const rest = await bounded(
      Array.from({ length: pages - 1 }, (_, i) => async () => {
        const p = await http.get<Page>(at(i + 2));
        done += p.items?.length ?? 0;
        progress(`audit: ${what} ${done}/${first.total_count}`);
        return p.items ?? [];
      }),
      CONCURRENCY,
    );
    for (const r of rest) rows.push(...r);
  }
  return rows;
}

function toQueue(q: Row): AuditQueue {
  const args = obj(q.arguments);
  const ms = obj(q.message_stats);
  return {
    vhost: String(q.vhost),
    name: String(q.name),
    type: text(q.type ?? args['x-queue-type'], 'classic'),
    durable: q.durable !== false,
    autoDelete: q.auto_delete === true,
    exclusive: q.exclusive === true,
    arguments: args,
    policy:
      q.effective_policy_definition &&
      typeof q.effective_policy_definition === 'object' &&
      !Array.isArray(q.effective_policy_definition)
        ? obj(q.effective_policy_definition)
        : null,
    stats: {
      messages: num(q.messages),
      ready: num(q.messages_ready),
      unacked: num(q.messages_unacknowledged),
      consumers: num(q.consumers),
      redeliverRate: rate(ms, 'redeliver'),
      deliverRate: rate(ms, 'deliver_get'),
      ackRate: rate(ms, 'ack'),
      redelivered: num(ms.redeliver),
    },
    members: Array.isArray(q.members) ? q.members.map(String) : null,
  };
}

function toConsumer(c: Row, channelPrefetch: Map<string, number>): AuditConsumer {
  const channel = text(obj(c.channel_details).name);
  return {
    vhost: text(obj(c.queue).vhost),
    queue: text(obj(c.queue).name),
    tag: text(c.consumer_tag),
    channel,
    ackRequired: c.ack_required !== false,
    prefetch: num(c.prefetch_count),
    channelPrefetch: channelPrefetch.get(channel) ?? 0,
  };
}

function toChannel(c: Row): AuditChannel {
  return {
    vhost: String(c.vhost),
    name: String(c.name),
    user: text(c.user),
    confirm: c.confirm === true,
    published: num(obj(c.message_stats).publish),
  };
}
