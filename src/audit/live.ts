/**
 * A broker's snapshot through its management API, GET only (a `monitoring` user is enough): every
 * listing with only the columns the checks read, in one request or in pages (listing.ts), the queues'
 * statistics only where a check can use them (live-queues.ts), at most CONCURRENCY requests in
 * flight, progress on stderr.
 */
import { EnvError } from '../core/errors.js';
import { maskUrl } from '../core/urls.js';
import { limited, type Reader } from './http.js';
import { listing, type Row } from './listing.js';
import { readQueues } from './live-queues.js';
import type { AuditChannel, AuditConsumer, AuditPolicy, Snapshot } from './snapshot.js';
import { parseVersion } from './target.js';
import { text } from '../core/text.js';

/** requests in flight at once: enough to hide the latency, few enough not to load a busy broker */
const CONCURRENCY = 4;

const EXCHANGE_COLUMNS = 'name,vhost,type,arguments,policy';
const BINDING_COLUMNS = 'vhost,source,destination,destination_type,routing_key';
const CHANNEL_COLUMNS = 'name,vhost,user,confirm,global_prefetch_count,message_stats';

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const obj = (v: unknown): Row => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : {});

interface LiveOptions {
  url: string;
  vhost?: string | undefined;
  progress: (line: string) => void;
}

export async function readLive(reader: Reader, o: LiveOptions): Promise<Snapshot> {
  const http = limited(reader, CONCURRENCY);
  const overview = obj(
    await http.get<unknown>('/api/overview?columns=rabbitmq_version,product_name,product_version,object_totals'),
  );
  if (typeof overview.rabbitmq_version !== 'string')
    throw new EnvError(
      `${maskUrl(o.url)} answered /api/overview without a rabbitmq_version: not a RabbitMQ management API`,
      'give --mgmt-url the management API base URL (e.g. http://host:15672)',
    );
  const totals = obj(overview.object_totals);
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

  const list = (path: string, columns: string, what: string) =>
    listing(http, { path, columns, what, total: totals[what] }, o.progress);
  const channelsPath = o.vhost === undefined ? '/api/channels' : `/api/vhosts${scope}/channels`;
  const consumersRead = http.get<Row[]>(`/api/consumers${scope}`);
  const [queues, exchanges, bindings, consumers, channels, policies] = await Promise.all([
    readQueues(http, {
      path: `/api/queues${scope}`,
      total: totals.queues,
      version: parseVersion(overview.rabbitmq_version) ?? [0, 0, 0],
      consumers: consumersRead,
      progress: o.progress,
    }),
    list(`/api/exchanges${scope}`, EXCHANGE_COLUMNS, 'exchanges'),
    http.get<Row[]>(`/api/bindings${scope}?columns=${BINDING_COLUMNS}`),
    consumersRead,
    list(channelsPath, CHANNEL_COLUMNS, 'channels'),
    // any user with access to the vhost may list its policies (rabbit_mgmt_wm_policies is_authorized_vhost)
    http.get<Row[]>(`/api/policies${scope}`),
  ]);
  const channelPrefetch = new Map(channels.map((c) => [String(c.name), num(c.global_prefetch_count)]));
  return {
    source: { kind: 'management', url: maskUrl(o.url) },
    broker: { product: text(overview.product_name, 'RabbitMQ'), version: overview.rabbitmq_version },
    vhosts,
    queues,
    exchanges: exchanges.map((x) => ({
      vhost: String(x.vhost),
      name: String(x.name),
      type: String(x.type),
      arguments: obj(x.arguments),
      policyName: typeof x.policy === 'string' && x.policy ? x.policy : null,
    })),
    bindings: bindings.map((b) => ({
      vhost: String(b.vhost),
      source: String(b.source),
      destination: String(b.destination),
      destination_type: b.destination_type === 'exchange' ? 'exchange' : 'queue',
      routing_key: String(b.routing_key),
    })),
    policies: policies.filter((p) => vhosts.includes(String(p.vhost))).map(toPolicy),
    file: null,
    consumers: consumers.map((c) => toConsumer(c, channelPrefetch)),
    channels: channels.map(toChannel),
    nodes,
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

function toPolicy(p: Row): AuditPolicy {
  return {
    vhost: String(p.vhost),
    name: String(p.name),
    pattern: text(p.pattern),
    applyTo: text(p['apply-to'], 'all'),
    priority: typeof p.priority === 'number' ? p.priority : 0,
    definition: obj(p.definition),
    operator: false,
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
