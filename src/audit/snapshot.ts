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
  /** null: the source has no live state (a definitions file) */
  consumers: AuditConsumer[] | null;
  channels: AuditChannel[] | null;
  /** running cluster nodes, null offline */
  nodes: string[] | null;
}

/** a queue argument or, without it, the key of its effective policy (queue arguments win, as in RabbitMQ) */
export function setting(q: Pick<AuditQueue, 'arguments' | 'policy'>, key: string): unknown {
  const a = q.arguments[`x-${key}`];
  return a !== undefined && a !== null ? a : q.policy?.[key];
}

/** a quorum queue with no dead-letter target and no delivery limit of its own: on 4.x the default limit (20) drops what returns too often */
export function underDefaultLimit(q: Pick<AuditQueue, 'type' | 'arguments' | 'policy'>): boolean {
  const unset = (key: string) => {
    const v = setting(q, key);
    return v === undefined || v === null;
  };
  return q.type === 'quorum' && unset('dead-letter-exchange') && unset('delivery-limit');
}

/** the broker's major.minor as numbers, [0, 0] when unknown */
export function versionOf(s: Pick<Snapshot, 'broker'>): [number, number] {
  const m = /^(\d+)\.(\d+)/.exec(s.broker?.version ?? '');
  return m ? [Number(m[1]), Number(m[2])] : [0, 0];
}
