/**
 * What the audit looks at: a broker's objects as the management API or a definitions export reports
 * them, in one shape. Live statistics (consumers, channels, rates, replicas, nodes) are null when the
 * source has none (a definitions file): the checks that need them say they were skipped.
 */

export interface AuditQueue {
  vhost: string;
  name: string;
  /** quorum | classic | stream (from the broker's type, or x-queue-type offline) */
  type: string;
  durable: boolean;
  autoDelete: boolean;
  exclusive: boolean;
  arguments: Record<string, unknown>;
  /** the definition of the policy in effect (operator policy merged, as the broker reports it) */
  policy: Record<string, unknown> | null;
  /** the names of the policy and the operator policy in effect (null: none, or not known) */
  policyName: string | null;
  operatorPolicyName: string | null;
  /** offline: the keys the policy and the operator policy each set (the evidence names them); live: unknown */
  policyKeys?: readonly string[];
  operatorKeys?: readonly string[];
  /** live only */
  stats: QueueStats | null;
  /** quorum queues, live only: the nodes holding a replica */
  members: string[] | null;
}

export interface QueueStats {
  messages: number;
  ready: number;
  unacked: number;
  consumers: number;
  /** per second, over the broker's sample window */
  redeliverRate: number;
  deliverRate: number;
  ackRate: number;
  /** totals since the queue's statistics began */
  redelivered: number;
}

export interface AuditExchange {
  vhost: string;
  name: string;
  type: string;
  arguments: Record<string, unknown>;
  /** the name of the policy in effect on the exchange (its definition is among the snapshot's policies) */
  policyName?: string | null;
}

/** a policy (or operator policy) as the broker lists it */
export interface AuditPolicy {
  vhost: string;
  name: string;
  pattern: string;
  /** all | queues | exchanges | classic_queues | quorum_queues | streams */
  applyTo: string;
  priority: number;
  definition: Record<string, unknown>;
  operator: boolean;
}

export interface AuditBinding {
  vhost: string;
  source: string;
  destination: string;
  destination_type: 'queue' | 'exchange';
  routing_key: string;
}

export interface AuditConsumer {
  vhost: string;
  queue: string;
  tag: string;
  channel: string;
  ackRequired: boolean;
  /** the consumer's own prefetch (0: none) */
  prefetch: number;
  /** the channel's, when the broker reports it */
  channelPrefetch: number;
}

export interface AuditChannel {
  vhost: string;
  name: string;
  user: string;
  confirm: boolean;
  /** messages published on the channel since it opened */
  published: number;
}

export interface Snapshot {
  source: { kind: 'management'; url: string } | { kind: 'definitions'; file: string };
  broker: { product: string; version: string } | null;
  vhosts: string[];
  queues: AuditQueue[];
  exchanges: AuditExchange[];
  bindings: AuditBinding[];
  /** the policies of the audited vhosts (null: the source did not give them) */
  policies: AuditPolicy[] | null;
  /** a definitions file only: what it says about itself (definitions.ts) */
  file: FileFacts | null;
  /** null: the source has no live state (a definitions file) */
  consumers: AuditConsumer[] | null;
  channels: AuditChannel[] | null;
  /** running cluster nodes, null offline */
  nodes: string[] | null;
}

/** how a file is shaped, as RabbitMQ's import reads it (rabbit_definitions.erl) */
export interface FileFacts {
  /** cluster: every object names its vhost; vhost: none does (GET /api/definitions/VHOST); mixed */
  shape: 'cluster' | 'vhost' | 'mixed' | 'empty';
  /** the vhost a one-vhost export names (original_vhost_name, from 4.0.5), or the one --vhost gave it */
  vhostName: string | null;
  /** queues, exchanges and bindings without a vhost field */
  vhostless: number;
  /** the lists the file holds */
  lists: string[];
  /** entries the import refuses or skips: each what, the object's name and why */
  invalid: { what: string; name: string; vhost: string; reason: string }[];
  /** queues whose `type` field the import ignores (it reads x-queue-type) */
  typeIgnored: { vhost: string; name: string; type: string; becomes: string }[];
}

/** a quorum queue with no dead-letter exchange and no delivery limit: from 4.0 the default limit (20) applies */
export function underDefaultLimit(q: Pick<AuditQueue, 'type' | 'arguments' | 'policy'>): boolean {
  const unset = (key: string) => {
    const a = q.arguments[`x-${key}`];
    const p = q.policy?.[key];
    return (a === undefined || a === null) && (p === undefined || p === null);
  };
  return q.type === 'quorum' && unset('dead-letter-exchange') && unset('delivery-limit');
}
